#!/usr/bin/env bash
# Tests of the switchboard command as a user meets it: the staged
# .build/dist/bin/switchboard (scripts/build.sh first) over the scenario
# scripts in Tests/cli/scenarios. Checks exit codes, that prove (TAP 13) and
# tappy (TAP 14) accept the output, that junitparser reads the JUnit XML,
# that each limit stops its offender and the run goes on, the sandbox, the
# --trace records, isolation, --filter, the progress line, call, routes, gen,
# replay and every example in --help; and valgrind memcheck over all of it.
#
# The tests are files in Tests/cli/tests_NN_*/ run by Tests/cli/run-tests.sh,
# each with a temporary directory of its own; arguments go to it:
#
#   scripts/cli-tests.sh                    every test
#   scripts/cli-tests.sh -f replay          the tests whose path matches
#   scripts/cli-tests.sh -l                 lists them
exec "$(dirname "$0")/../Tests/cli/run-tests.sh" "$@"
