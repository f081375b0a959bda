# Code stuck in C, where no hook runs: the watchdog ends a scenario's process, or
# (in the runner's own process) the run.
run stuck run "${load[@]}" --plugin "$stuck_plugin" --timeout 1 --grace 1 --junit "$work/stuck.xml" $scenarios/stuck.lua $scenarios/isolation.lua
check "a scenario stuck in C: its process is ended past --grace, it is a limit, the run goes on" $py "$here/stuck.py" "$work/stuck.tap" "$work/stuck.xml"
check "... and the run's exit status is 1, not 3" status_is stuck 1
row "Scenario stuck in a C action that never returns, under --timeout 1 --grace 1" 1 \
  "its process is ended past the grace; the scenario is reported as a limit and the run goes on (exit status 1)"
# The top level still runs in the runner's own process: stuck there (here
# the second time it runs, when its scenarios are prepared, after the
# listing), the watchdog ends the whole run, leaving the report so far.
printf 'scenario("ok", function() end)\n' > "$work/first.lua"
cat > "$work/stuck_top.lua" <<EOF
local marker = "$work/stuck_top.marker"
local seen = io.open(marker, "r")
if seen then seen:close(); string.find(string.rep("a", 40), string.rep("a*", 40) .. "b") end
io.open(marker, "w"):close()
scenario("never runs", function() end)
EOF
run stucktop run --allow-os --timeout 1 --grace 1 --junit "$work/stucktop.xml" "$work/first.lua" "$work/stuck_top.lua"
check "a top level stuck in C ends the run: exit 3, Bail out!, the JUnit report so far" bash -c "
  [ \$(cat '$work/stucktop.status') = 3 ] && grep -q '^ok 1 ' '$work/stucktop.tap' \
    && grep -q '^Bail out! .*the script.s top level' '$work/stucktop.tap' && grep -q 'switchboard: .*past its timeout' '$work/stucktop.err' \
    && grep -q 'testcase name=\"ok\"' '$work/stucktop.xml' || { cat '$work/stucktop.tap' '$work/stucktop.err'; exit 1; }"
