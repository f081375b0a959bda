# --max-instructions where Lua calls no hook of its own: message handlers, coroutines.
run handler_loop run --timeout 0 --max-instructions 1000000 $scenarios/handler_loop.lua
check "a message handler that loops is stopped by the instruction limit, even with no timeout" bash -c "
  grep -q '^not ok 1 ' '$work/handler_loop.tap' && grep -q 'instruction budget of 1000000' '$work/handler_loop.tap' \
    && grep -q '^ok 2 ' '$work/handler_loop.tap' || { cat '$work/handler_loop.tap'; exit 1; }"
row "Scenario loops in an xpcall message handler, under --max-instructions with no --timeout" 1 \
  "the limit stops it: once a limit tripped, the script's handlers are not called (they would run with no hook)"
run coroutines run --max-instructions 1000000 --timeout 20 $scenarios/coroutines.lua
check "every coroutine counts against the one instruction budget" $py "$here/coroutines.py" "$work/coroutines.tap"
row "Scenario spreads its work over short coroutines (coroutine.wrap, coroutine.create), under --max-instructions" 2 \
  "the instruction limit stops it; a generator is counted once; the run goes on"
