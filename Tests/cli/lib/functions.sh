# What every test of the command has (sourced by run-test.sh): the command,
# the examples, the test plugins, and the checks. Set before it: $work (the
# test's own directory) and $here (the test's folder).
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib/common.sh"

sb=$SB_ROOT/.build/dist/bin/switchboard
examples=$SB_ROOT/.build/dist/share/switchboard/examples
# Debian's python3, which has tappy (python3-tap) and python3-junitparser.
py=/usr/bin/python3
scenarios=Tests/cli/scenarios
# Built once by run-tests.sh: Tests/cli/plugins/stuck.c (an action that
# never returns) and process.c (a plugin that starts a thread, aborts,
# writes forged TAP: see the file).
stuck_plugin=$SB_CLI_BUILD/stuck.so
process_plugin=$SB_CLI_BUILD/process.so
module_a=$examples/module_a.so
load=(--plugin "$module_a" --targets "$examples/targets")

checks_passed=0
checks_failed=0
: > "$SB_CLI_RESULT"
rows_file=${SB_CLI_RESULT%.result}.rows
: > "$rows_file"

# row CLASS CASES OBSERVED: a row of docs/ROBUSTNESS.md (see
# scripts/robustness.sh), recorded when every test passed.
row() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$rows_file"; }

# check DESCRIPTION COMMAND...: runs COMMAND, reports ok or FAILED with
# what it printed.
check() {
  local what=$1; shift
  if "$@" > "$work/check.out" 2>&1; then
    echo "  ok: $what"
    checks_passed=$((checks_passed + 1))
  else
    echo "  FAILED: $what"
    sed 's/^/    | /' "$work/check.out" | head -40
    checks_failed=$((checks_failed + 1))
  fi
}

# run NAME [switchboard args...]: stdout to NAME.tap, stderr to NAME.err,
# the exit status to NAME.status, all in $work.
run() {
  local name=$1 status=0; shift
  "$sb" "$@" > "$work/$name.tap" 2> "$work/$name.err" || status=$?
  echo $status > "$work/$name.status"
}
status_is() { [ "$(cat "$work/$1.status")" = "$2" ] || { echo "exit status $(cat "$work/$1.status"), expected $2"; cat "$work/$1.err"; return 1; }; }
has() { grep -q -- "$2" "$work/$1" || { echo "no '$2' in $1:"; cat "$work/$1"; return 1; }; }
lacks() { ! grep -q -- "$2" "$work/$1" || { echo "unexpected '$2' in $1"; return 1; }; }

# usage NAME PATTERN [switchboard args...]: exit 64, PATTERN on stderr, no TAP.
usage() {
  local name=$1 pattern=$2; shift 2
  run "$name" "$@"
  status_is "$name" 64 && has "$name.err" "$pattern" && [ ! -s "$work/$name.tap" ]
}

# The EXIT trap of a test: its counts for run-tests.sh; a failed check
# fails the test.
sb_test_end() {
  local status=$?
  echo "$checks_passed $checks_failed" > "$SB_CLI_RESULT"
  [ $status = 0 ] && [ $checks_failed = 0 ] || exit 1
}
