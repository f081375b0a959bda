#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time:
#
#   scripts/fuzz.sh NAME SECONDS       e.g. scripts/fuzz.sh url 60
#
# Fuzzers are in Tests/fuzz (their own package, built with ASan, so a leak
# or a memory error fails the run). Seeds come from Tests/fuzz/corpus/NAME;
# what the run discovers goes to .build/fuzz/corpus/NAME, never into the
# repository. Exits non-zero on a crash, leak, timeout or failed invariant.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

name="${1:?usage: scripts/fuzz.sh NAME SECONDS (NAME: url)}"
seconds="${2:?usage: scripts/fuzz.sh NAME SECONDS}"
case "$name" in
  url) product=URLFuzzer ;;
  *) sb_die "unknown fuzzer '$name' (known: url)" ;;
esac

scratch="$SB_ROOT/.build/fuzz"
swift build --package-path Tests/fuzz --scratch-path "$scratch/build" -c debug \
  --sanitize=fuzzer --sanitize=address --product "$product" >&2
mkdir -p "$scratch/corpus/$name" "$scratch/artifacts"
"$scratch/build/debug/$product" "$scratch/corpus/$name" "Tests/fuzz/corpus/$name" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$scratch/artifacts/$name-" 2>&1 | tail -n 25
