#!/usr/bin/env bash
# The Swift tests under ThreadSanitizer, in a build folder of their own (so
# the sanitized build never replaces the plain one). The sanitizer's reports
# go to files, and a failed run prints them last: a CI log that shows only
# its tail still shows which race was reported, and where.
#
#   scripts/tsan-tests.sh [swift test options, e.g. --filter GuardedTests]
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

reports="$SB_ROOT/.build-tsan/reports"
rm -rf "$reports" && mkdir -p "$reports"
status=0
TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}log_path=$reports/report" \
  swift test --scratch-path .build-tsan --sanitize=thread "$@" || status=$?
shopt -s nullglob
found=("$reports"/report*)
if [ $status != 0 ] || [ ${#found[@]} != 0 ]; then
  for report in "${found[@]}"; do
    printf '\n--- %s (first 60 lines)\n' "$report" >&2
    head -60 "$report" >&2
  done
  [ $status != 0 ] || status=1 # a report fails the step even if the run passed
fi
exit $status
