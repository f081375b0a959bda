#!/usr/bin/env bash
# Runs one test file (run-tests.sh calls it): run-test.sh TEST WORK.
# The test runs from the repository's root (scenario paths in reports are
# relative to it), with the helpers of functions.sh and $work, a directory
# of its own. It fails if any of its checks failed, or if a command
# outside a check failed (set -e).
set -eEuo pipefail
test_file=$1
work=$2
here=$(dirname "$test_file") # the test's folder: its Python checks and fixtures
source "$(dirname "${BASH_SOURCE[0]}")/functions.sh"
source "$(dirname "${BASH_SOURCE[0]}")/fixtures.sh"
cd "$SB_ROOT"
# script(1) runs its command with $SHELL, which a CI machine may leave unset
# (then /bin/sh): the tests quote for bash (printf %q).
export SHELL="$BASH"
trap sb_test_end EXIT
trap 'echo "  stopped at line $LINENO of ${BASH_SOURCE[0]##*/}: $BASH_COMMAND"' ERR
source "$test_file"
