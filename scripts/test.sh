#!/usr/bin/env bash
# THE test command: installs what is missing, builds, and runs every suite.
#
#   scripts/test.sh
#
# On a fresh Debian machine as root it installs the packages it needs first
# (scripts/deps.sh). It never measures time: speed is scripts/bench.sh's job.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

sb_run "Dependencies" scripts/deps.sh

# Swift: the core, the C face driven from Swift, and Swift + C + Lua in one
# process (Swift Testing).
sb_run "Swift tests" swift test
# A second build folder, so the sanitized build never replaces the plain one.
sb_run "Swift tests under ThreadSanitizer" swift test --scratch-path .build-tsan --sanitize=thread

# C: the shipped library, as C programs and plugins see it.
sb_run "Release build, staged in .build/dist" scripts/build.sh
sb_run "switchboard.h agrees with the library" scripts/check-header.sh release
sb_run "Exports, SONAME, no Swift dependency" scripts/check-exports.sh
sb_run "C suites" make -s -C Tests/c run
sb_run "C suites under valgrind memcheck" make -s -C Tests/c valgrind
sb_run "C suites under ASan + UBSan" make -s -C Tests/c asan
# Lua: the module in stock lua5.4 (busted), an embedding host, valgrind.
sb_run "Lua specs (busted, lua5.4) and an embedding host" scripts/lua-tests.sh specs
sb_run "Lua stress and embedding host under valgrind memcheck" scripts/lua-tests.sh valgrind

# Fuzzing, bounded: URL parsing and pattern matching (ASan, leaks fail it).
sb_run "Fuzz the URL entry (libFuzzer + ASan, 45 s)" scripts/fuzz.sh url 45

# Benchmarks in smoke mode: every case runs and the JSON is complete. No
# time is asserted here (timing belongs to scripts/bench.sh runs).
sb_run "Benchmarks, smoke mode" scripts/bench.sh --smoke --no-build --json .build/bench-smoke.json

sb_run "The switchboard command (TAP via prove and tappy, JUnit, limits, trace)" scripts/cli-tests.sh
sb_run "Install into a prefix, build with pkg-config, require from lua5.4" scripts/check-install.sh
sb_run "README examples" scripts/check-readme.sh
sb_summary
