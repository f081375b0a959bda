#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time:
#
#   scripts/fuzz.sh NAME SECONDS       e.g. scripts/fuzz.sh url 60
#
# NAME is one of:
#   url     URL parsing, the policy, connectors and route patterns (C API)
#   lua     Lua values <-> Switchboard values through the Lua module
#   capi    random sequences of C API calls, checking invariants
#   order   dicts with keys in every spelling and order, through C, Swift,
#           Lua, routes and JSON: back identical, in order, byte for byte
#
# Fuzzers are in Tests/fuzz (their own package). Every target of it and of
# Switchboard is built with libFuzzer's coverage and ASan, so a memory error
# or a leak fails the run. Seeds come from Tests/fuzz/corpus/NAME; what the
# run discovers goes to .build/fuzz/corpus/NAME, never into the repository.
# Exits non-zero on a crash, leak, timeout or failed invariant, and prints
# the number of executions (stat::number_of_executed_units).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

usage="usage: scripts/fuzz.sh NAME SECONDS (NAME: url, lua, capi, order)"
name="${1:?$usage}"
seconds="${2:?$usage}"
case "$name" in
  url) product=URLFuzzer what="Fuzzing: URLs and route patterns through the C API (libFuzzer + ASan)" ;;
  lua) product=LuaValueFuzzer what="Fuzzing: Lua values (nested, cyclic, huge, odd keys) to values and back (libFuzzer + ASan)" ;;
  capi) product=CAPIFuzzer what="Fuzzing: sequences of C API calls with invariants (libFuzzer + ASan)" ;;
  order) product=ValueOrderFuzzer what="Fuzzing: dicts with keys in every spelling and order through C, Swift, Lua, routes and JSON (libFuzzer + ASan)" ;;
  *) sb_die "unknown fuzzer '$name'; $usage" ;;
esac

scratch="$SB_ROOT/.build/fuzz"
# SwiftPM plans a dependency's sources once: a file added to Switchboard
# since would be missing from this build ("cannot find ... in scope"). The
# plan is dropped whenever the list of source files changes.
sources=$(find Sources -type f | LC_ALL=C sort | cksum)
if [ "$(cat "$scratch/sources.stamp" 2>/dev/null)" != "$sources" ]; then
  rm -f "$scratch/build/debug.yaml" "$scratch/build/build.db" "$scratch/build/debug/description.json"
  mkdir -p "$scratch" && echo "$sources" > "$scratch/sources.stamp"
fi
# --sanitize instruments the fuzz package's own targets and links libFuzzer;
# the -Xswiftc / -Xcc flags extend coverage and ASan to the Switchboard
# targets it depends on (without them libFuzzer sees only the fuzzer's code).
swift build --package-path Tests/fuzz --scratch-path "$scratch/build" -c debug \
  --sanitize=fuzzer --sanitize=address \
  -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address \
  --product "$product" >&2
mkdir -p "$scratch/corpus/$name" "$scratch/artifacts"
# A small ASan quarantine: the default 256 MiB reads as a leak in RSS.
ASAN_OPTIONS="${ASAN_OPTIONS:-quarantine_size_mb=16}" \
"$scratch/build/debug/$product" "$scratch/corpus/$name" "Tests/fuzz/corpus/$name" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
  -artifact_prefix="$scratch/artifacts/$name-" 2>&1 | grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)|^"|^###### |NEW_FUNC' | tail -n 25

# A row for docs/ROBUSTNESS.md (see scripts/robustness.sh); the execution
# count varies from run to run, so the row gives the time and the seeds.
if [ -n "${SB_ROBUSTNESS_LOG:-}" ]; then
  seeds=$(find "Tests/fuzz/corpus/$name" -type f | wc -l)
  printf '%s\t%s s from %s seeds\t%s\n' "$what" "$seconds" "$seeds" \
    "no crash, leak, timeout or failed invariant" >> "$SB_ROBUSTNESS_LOG"
fi
