# --junit: where it may be, what it holds when a run ends early, what it costs.
run badjunit run "${load[@]}" --junit "$work/no/such/dir/report.xml" $scenarios/mixed.lua
check "a --junit file in a directory that is not there is a usage error before any scenario runs" bash -c "
  [ \$(cat '$work/badjunit.status') = 64 ] && grep -q 'report.xml: the directory .* is not there' '$work/badjunit.err' \
    && ! grep -q '^ok' '$work/badjunit.tap'"
echo "a stale report" > "$work/stale.xml"
run stale run --junit "$work/stale.xml" --timeout 2 --grace 1 $scenarios/slow_top.lua
# (An empty report, tests="0", read as a clean run: issue 43, item 6.)
check "--junit: the report is made at once, so a run ended while listing leaves a report saying it did not finish, not a stale one" bash -c "
  [ \$(cat '$work/stale.status') = 3 ] && grep -q '<testsuites name=\"switchboard\" tests=\"1\" failures=\"0\" errors=\"1\"' '$work/stale.xml' \
    && grep -q '<testcase name=\"the run did not finish\"' '$work/stale.xml' \
    && ! grep -q 'stale' '$work/stale.xml' || { cat '$work/stale.xml'; exit 1; }"
row "A run with --junit ends while a script's top level is listed (stuck in C past --timeout and --grace)" 1 \
  "the JUnit file holds a report saying the run did not finish (an error, made before anything runs), never the previous run's, never one that reads as clean"
check "--junit keeps no test case in memory: 1,000 scenarios printing 64 KiB each, runner under 48 MiB" \
  $py "$here/noisy.py" "$sb" $scenarios/noisy.lua "$work/noisy.xml"
row "1,000 scenarios each print 64 KiB, with --junit" 1 "test cases are spooled to a temporary file as they come: the runner's memory does not grow with them"
