# Scenarios that wait for actions that answer later.
run async run "${load[@]}" --timeout 2 --junit "$work/async.xml" $scenarios/async.lua
check "scenarios wait for actions that answer later (in steps, pcall, xpcall); a call that never ends meets the timeout" \
  $py "$here/async.py" "$work/async.tap" "$work/async.status"
row "Scenario waits for a call that never ends (a Lua action's sb.later never answered), under --timeout 2" 1 \
  "the timeout stops it with a message naming the wait; the run goes on"
row "Scenario body yields by itself (coroutine.yield at its top level)" 1 \
  "an error saying nothing would resume it, at once"
