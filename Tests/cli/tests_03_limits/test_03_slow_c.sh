# Loops of slow C calls and stdlib functions stuck in C, against --timeout and --grace.
run slowc run --timeout 1 --max-instructions 0 $scenarios/slow_c.lua
check "--timeout stops a loop of slow C calls on time (no Bail out!)" bash -c "
  grep -q 'the timeout of 1 s was reached' '$work/slowc.tap' && grep -q '^ok 2 ' '$work/slowc.tap' \
    && ! grep -q 'Bail out' '$work/slowc.tap' || { cat '$work/slowc.tap'; exit 1; }"
run slowcco run --timeout 1 --grace 2 --max-instructions 0 $scenarios/slow_c_coroutine.lua
check "--timeout stops a loop of slow C calls inside a coroutine on time (no Bail out!)" bash -c "
  grep -q 'the timeout of 1 s was reached' '$work/slowcco.tap' && grep -q '^ok 2 ' '$work/slowcco.tap' \
    && ! grep -q 'Bail out' '$work/slowcco.tap' || { cat '$work/slowcco.tap'; exit 1; }"
row "Scenario loops over slow C calls (about 20 ms each) inside a coroutine, under --timeout 1 --grace 2" 1 \
  "the timeout stops it on time (the coroutine sees the watchdog's nudge at its next call); the run goes on"
# The same loop behind 30 MB of comments: the watchdog's clock starts before
# the script loads, so its nudge comes early; the check must keep watching.
awk 'BEGIN { for (i = 0; i < 300000; i++) printf "-- %097d\n", i }' > "$work/slow_load.lua"
cat $scenarios/slow_c.lua >> "$work/slow_load.lua"
run slowload run --timeout 1 --grace 2 --max-instructions 0 "$work/slow_load.lua"
check "--timeout stops slow C calls on time after a slow load (an early nudge keeps watching)" bash -c "
  grep -q 'the timeout of 1 s was reached' '$work/slowload.tap' && grep -q '^ok 2 ' '$work/slowload.tap' \
    && ! grep -q 'Bail out' '$work/slowload.tap' || { cat '$work/slowload.tap'; exit 1; }"
# A timeout shorter than the load: the nudge comes before the guard is armed.
run slowload2 run --timeout 0.02 --grace 2 --max-instructions 0 "$work/slow_load.lua"
check "--timeout shorter than the script's load still stops slow C calls (a nudge before arming is kept)" bash -c "
  grep -q 'the timeout of 0.02 s was reached' '$work/slowload2.tap' && ! grep -q 'Bail out' '$work/slowload2.tap' \
    || { cat '$work/slowload2.tap'; exit 1; }"
printf 'scenario("ok", function() end)\nscenario("hangs in C", function() string.find(string.rep("a", 40), string.rep("a*", 40) .. "b") end)\nscenario("runs after it", function() end)\n' > "$work/cloop.lua"
run cloop run --timeout 1 --grace 1 --junit "$work/cloop.xml" "$work/cloop.lua"
check "a stdlib function stuck in C is a limit, the run goes on, the JUnit report is whole" bash -c "
  [ \$(cat '$work/cloop.status') = 1 ] && grep -q '^ok 1 ' '$work/cloop.tap' && grep -q '^not ok 2 ' '$work/cloop.tap' \
    && grep -q '^ok 3 ' '$work/cloop.tap' && ! grep -q '^Bail out!' '$work/cloop.tap' \
    && grep -q 'testcase name=\"runs after it\"' '$work/cloop.xml' || { cat '$work/cloop.tap'; exit 1; }"
printf 'string.find(string.rep("a", 40), string.rep("a*", 40) .. "b")\n' > "$work/csetup.lua"
run csetup call --timeout 1 --grace 1 --setup "$work/csetup.lua" A x
check "call: a --setup stuck in C is ended by the watchdog" bash -c "
  [ \$(cat '$work/csetup.status') = 3 ] && grep -q 'past its timeout' '$work/csetup.err'"
