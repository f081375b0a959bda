#!/usr/bin/env bash
# Runs the tests of the switchboard command: every tests_NN_*/test_NN_*.sh
# in this folder, in order, each in a bash of its own with a temporary
# directory of its own ($work), against the staged
# .build/dist/bin/switchboard (scripts/build.sh first). A test is a list
# of checks (lib/functions.sh): each prints "ok:" or "FAILED:" with what
# it saw.
#
#   Tests/cli/run-tests.sh               every test
#   Tests/cli/run-tests.sh -f REGEX      the tests whose path matches REGEX
#                                        (tests_03_isolation/test_02_processes.sh)
#   Tests/cli/run-tests.sh -l            lists the tests (with -f: those it matches)
#   Tests/cli/run-tests.sh -k            keeps the temporary directories
#
# With SB_ROBUSTNESS_LOG set (scripts/test.sh), the rows of
# docs/ROBUSTNESS.md the tests record are appended to it when every test
# passed.
set -euo pipefail
shopt -s nullglob

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../../scripts/lib/common.sh"

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; }
filter=. list=0 keep=0
while getopts "f:lkh" option; do
  case $option in
    f) filter=$OPTARG ;;
    l) list=1 ;;
    k) keep=1 ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 64 ;;
  esac
done

tests=()
for t in "$here"/tests_*/test_*.sh; do
  name=${t#"$here/"}
  [[ $name =~ $filter ]] && tests+=("$name")
done
if [ $list = 1 ]; then printf '%s\n' "${tests[@]}"; exit 0; fi
[ ${#tests[@]} -gt 0 ] || sb_die "no test matches -f $filter (-l lists them)"

sb=$SB_ROOT/.build/dist/bin/switchboard
[ -x "$sb" ] || sb_die "no $sb: run scripts/build.sh first"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/switchboard-cli-tests.XXXXXX")
if [ $keep = 0 ]; then trap 'rm -rf "$tmp"' EXIT; else echo "keeping $tmp"; fi

# The test plugins, built once for every test (lib/functions.sh names them).
mkdir -p "$tmp/build"
cd "$SB_ROOT"
cc -std=c99 -Wall -Wextra -Werror -pedantic -shared -fPIC -I include Tests/cli/plugins/stuck.c -o "$tmp/build/stuck.so"
# -z nodelete: the thread it may start must outlive dlclose.
cc -std=c99 -Wall -Wextra -Werror -pedantic -D_POSIX_C_SOURCE=200809L -shared -fPIC -Wl,-z,nodelete -I include \
  Tests/cli/plugins/process.c -lpthread -o "$tmp/build/process.so"

passed=0 failed=0 failed_tests=() rows=()
for name in "${tests[@]}"; do
  id=${name//\//-}
  id=${id%.sh}
  work="$tmp/$id"
  mkdir -p "$work"
  echo "$name"
  status=0
  SB_CLI_BUILD="$tmp/build" SB_CLI_RESULT="$tmp/$id.result" \
    bash "$here/lib/run-test.sh" "$here/$name" "$work" || status=$?
  read -r test_passed test_failed < "$tmp/$id.result" || { test_passed=0; test_failed=1; }
  passed=$((passed + test_passed))
  failed=$((failed + test_failed))
  if [ $status != 0 ]; then
    [ "$test_failed" != 0 ] || echo "  FAILED: $name stopped before its end (exit $status)"
    failed_tests+=("$name")
  elif [ -s "$tmp/$id.rows" ]; then
    mapfile -t -O ${#rows[@]} rows < "$tmp/$id.rows"
  fi
done

echo
if [ ${#failed_tests[@]} -gt 0 ]; then
  printf '%d checks passed, %d failed, in:\n' "$passed" "$failed"
  printf '  %s\n' "${failed_tests[@]}"
  echo "(Tests/cli/run-tests.sh -f NAME -k runs one again and keeps its files)"
  exit 1
fi
if [ -n "${SB_ROBUSTNESS_LOG:-}" ] && [ ${#rows[@]} -gt 0 ]; then printf '%s\n' "${rows[@]}" >> "$SB_ROBUSTNESS_LOG"; fi
echo "all $passed checks of ${#tests[@]} tests passed"
