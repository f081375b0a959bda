#!/usr/bin/env bash
# Rules of the Swift sources that the compiler cannot check:
# 1. `_withUnsafeGuaranteedRef` (a reference read without retaining it) is
#    in Sources/Switchboard/Concurrency/Borrowed.swift only (issue 39);
# 2. `Synchronization.Mutex` is in Sources/Switchboard/Concurrency/Guarded.swift
#    only: ThreadSanitizer cannot see its contended path on Linux and reports
#    races in correct code; `Guarded` tells the sanitizer (or take `Lock`).
#    In the tests too, which run under ThreadSanitizer (the examples and
#    benchmarks do not, and show users the standard type).
#
#   scripts/check-sources.sh
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

swift_files() { git ls-files -- 'Sources/*.swift' 'Tests/*.swift'; }

# FILE-ALLOWED PATTERN WHAT: fails naming every other file where PATTERN occurs.
only_in() {
  local allowed="$1" pattern="$2" what="$3" found
  found=$(swift_files | grep -vxF "$allowed" | xargs grep -nE "$pattern" -- | grep -vE '^[^:]+:[0-9]+:\s*//' || true)
  [ -z "$found" ] || sb_die "$what belongs in $allowed only; found:
$found"
}

only_in Sources/Switchboard/Concurrency/Borrowed.swift '_withUnsafeGuaranteedRef' '_withUnsafeGuaranteedRef'
only_in Sources/Switchboard/Concurrency/Guarded.swift '\bMutex *[<(]' 'Synchronization.Mutex (use Guarded)'
echo "Swift sources: _withUnsafeGuaranteedRef in Borrowed.swift, Mutex in Guarded.swift, nowhere else"
