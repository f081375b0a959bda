#!/usr/bin/env bash
# THE test command: installs what is missing, builds, and runs every suite.
#
#   scripts/test.sh            everything (what CI runs)
#   scripts/test.sh --quick    for your own iterations: no sanitizers, valgrind,
#                              fuzzing, stress or benchmarks (a few minutes)
#
# On a fresh Debian machine as root it installs the packages it needs first
# (scripts/deps.sh). It never measures time: speed is scripts/bench.sh's job.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

quick=0
case "${1:-}" in
  "") ;;
  --quick) quick=1 ;;
  -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) sb_die "unknown option $1 (see --help)" ;;
esac

# A step that --quick leaves out.
sb_slow() {
  if [ $quick = 1 ]; then sb_step "$1 (left out by --quick)"; return; fi
  sb_run "$@"
}

sb_run "Dependencies" scripts/deps.sh
sb_run "Swift source rules: Mutex only in Guarded.swift, _withUnsafeGuaranteedRef only in Borrowed.swift" scripts/check-sources.sh

# Suites record the fault classes they try here, for docs/ROBUSTNESS.md.
export SB_ROBUSTNESS_LOG="$SB_ROOT/.build/robustness.tsv"
mkdir -p "$SB_ROOT/.build"
: > "$SB_ROBUSTNESS_LOG"

# Swift: the core, the C face driven from Swift, and Swift + C + Lua in one
# process (Swift Testing).
sb_run "Swift tests" swift test
# A compile-time test: top-level code with `try await` gets the awaitable
# forms (a warning fails its build; a blocking form picked refuses at run time).
sb_run "Top-level await picks the awaitable forms (Tests/TopLevelAwait)" swift run SwitchboardTopLevelAwait
# A second build folder, so the sanitized build never replaces the plain one.
sb_slow "Swift tests under ThreadSanitizer" scripts/tsan-tests.sh

# C: the shipped library, as C programs and plugins see it.
sb_run "Release build, staged in .build/dist" scripts/build.sh
sb_run "Public names follow sb_<noun>_<verb>" scripts/check-names.sh
sb_run "switchboard.h agrees with the library" scripts/check-header.sh release
sb_run "Exports, SONAME, no Swift dependency" scripts/check-exports.sh
# The C ABI against the committed baseline (libabigail); any difference fails
# until `scripts/abi.sh update` records it on purpose.
sb_run "ABI unchanged against abi/libswitchboard.abi (abidw, abidiff)" scripts/abi.sh check
sb_run "switchboard.h as C99, C11, C++11 and C++17; a C++ program runs" scripts/check-header-languages.sh
sb_run "The committed generated wrappers match their contracts (switchboard gen)" scripts/generate.sh --check
sb_run "C suites" make -s -C Tests/c run
sb_run "Hostile C programs (threads racing misses, registrations, nesting)" make -s -C Tests/c hostile
# Instruction counts (callgrind, which repeat exactly) against
# bench/budgets.tsv: a regression of more than 5% fails. Never times.
sb_run "Instruction budgets (scripts/bench.sh --check, about a minute)" scripts/bench.sh --check --no-build
sb_slow "C suites under valgrind memcheck" make -s -C Tests/c valgrind
sb_slow "C suites under ASan + UBSan" make -s -C Tests/c asan
# Lua: the module in stock lua5.4 (busted), an embedding host, valgrind.
sb_run "Lua specs (busted, lua5.4) and an embedding host" scripts/lua-tests.sh specs
sb_run "Event loops: examples/loops with libuv, GLib, epoll (edge-triggered), luv and cqueues" scripts/check-loops.sh
sb_slow "Lua stress and embedding host under valgrind memcheck" scripts/lua-tests.sh valgrind

# Fuzzing, bounded (libFuzzer + ASan: a crash, a leak or a failed invariant
# fails the step).
sb_slow "Fuzz URLs and route patterns (35 s)" scripts/fuzz.sh url 35
sb_slow "Fuzz Lua values to values and back (35 s)" scripts/fuzz.sh lua 35
sb_slow "Fuzz sequences of C API calls (35 s)" scripts/fuzz.sh capi 35
sb_slow "Fuzz dict order and key bytes through C, Swift, Lua, routes and JSON (35 s)" scripts/fuzz.sh order 35

# Stress: every kind of call from 8 threads, results and memory checked.
sb_slow "Stress: 8 threads for 10 s, Swift and C" swift run SwitchboardStress --threads 8 --seconds 10

# Benchmarks in smoke mode: every case runs and the JSON is complete. No
# time is asserted here (timing belongs to scripts/bench.sh runs).
sb_slow "Benchmarks, smoke mode" scripts/bench.sh --smoke --no-build --json .build/bench-smoke.json

sb_run "The switchboard command (TAP via prove and tappy, JUnit, limits, trace)" scripts/cli-tests.sh
# The examples' trace, replayed on the build that recorded it: nothing differs, nothing is skipped.
sb_run "Replay gate: the examples run with --trace, then replayed (scripts/check-replay.sh, seconds)" scripts/check-replay.sh
sb_run "The switchboard command's conventions (exit 64 for bad params, --help names its prefix, completions)" scripts/check-command-conventions.sh
sb_run "Install with --prefix and DESTDIR, pkg-config, C and C++, lua5.4, uninstall" scripts/check-install.sh
sb_run "The installed library under gdb and valgrind (stripped, DWARF 4 debug file, suppressions)" scripts/check-debuginfo.sh
sb_run "LuaRocks: luarocks make into a temporary tree, require from lua5.4" scripts/check-luarocks.sh
sb_run "Version numbers: the header, CHANGELOG.md, a tag and the symbol versions agree" scripts/check-versions.sh
sb_run "Swift: a versioned dependency resolves every product; an app importing Switchboard builds without swift-crypto" scripts/check-swift-dependency.sh
sb_run "Swift: every public symbol has a doc comment (symbol graph)" scripts/check-docs.sh
# About 10 s once built (a minute from clean): cheap enough for --quick.
sb_run "Swift: the DocC catalogue builds (swift-docc-plugin, warnings as errors) and its articles' samples pass" scripts/check-docc.sh
sb_run "Every sample in README.md and docs/ runs (or says why not) and prints what it shows" scripts/check-samples.sh
sb_run "The README's picture is what switchboard graph draws from the examples' run (docs/images)" scripts/examples-graph.sh
sb_run "docs/lua.md documents every name of the Lua module" scripts/check-lua-reference.sh
sb_slow "docs/ROBUSTNESS.md matches what the suites recorded" scripts/robustness.sh check "$SB_ROBUSTNESS_LOG"
sb_summary
[ $quick = 0 ] || echo "  (--quick: not every suite ran; scripts/test.sh runs them all)"
