# Exit status, TAP (tappy reads version 14, prove version 13) and JUnit XML
# (junitparser) of a run with failures and errors.
run mixed run "${load[@]}" --junit "$work/mixed.xml" $scenarios/mixed.lua
check "a run with failures exits 1" status_is mixed 1
check "every scenario is reported, in order, and the run goes on" $py "$here/mixed_tap.py" "$work/mixed.tap"
check "prove accepts the TAP 13 stream" bash -c "
  prove --exec '$sb run --tap-version 13 ${load[*]}' $scenarios/mixed.lua $scenarios/matchers.lua > '$work/prove.txt' 2>&1
  grep -q 'Parse errors' '$work/prove.txt' && { cat '$work/prove.txt'; exit 1; }
  grep -q 'Failed tests:  2-4' '$work/prove.txt' && grep -q 'Tests=7' '$work/prove.txt' || { cat '$work/prove.txt'; exit 1; }"
check "prove accepts the examples and they pass" \
  prove --exec "$sb run --tap-version 13 ${load[*]}" "$examples"/scenarios/*.lua

run matchers run "${load[@]}" $scenarios/matchers.lua
check "the matchers hold and their messages say what differs" status_is matchers 0

check "junitparser reads the report: 5 cases, 1 failure vs 2 errors, output" $py "$here/mixed_junit.py" "$work/mixed.xml"
check "no progress line when stdout is a pipe" lacks mixed.err $'\e[K'
