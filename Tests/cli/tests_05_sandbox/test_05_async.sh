# Scenarios that wait for actions that answer later.
run async run "${load[@]}" --timeout 2 --junit "$work/async.xml" $scenarios/async.lua
check "scenarios wait for actions that answer later (in steps, pcall, xpcall); a call that never ends meets the timeout" \
  $py "$here/async.py" "$work/async.tap" "$work/async.status"
row "Scenario waits for a call that never ends (a Lua action's sb.later never answered), under --timeout 2" 1 \
  "the timeout stops it with a message naming the wait; the run goes on"
row "Scenario body yields by itself (coroutine.yield at its top level)" 1 \
  "an error saying nothing would resume it, at once"

# A scenario whose plugin thread and Lua answer at once, in 40 processes:
# both threads of the scenario's process meet in the Swift runtime's first
# use of a type, behind a lock that the forking thread took with its
# parent's thread id; 1 run in 7 hung until --grace before the library made
# a forked child's thread forget that id (Sources/CSwitchboard/fork_ids.c).
forty_runs() {
  for i in $(seq 40); do
    "$sb" run "${load[@]}" --timeout 5 --grace 1 --filter steps $scenarios/async.lua > "$work/forty.tap" 2>&1 \
      || { echo "run $i:"; cat "$work/forty.tap"; return 1; }
  done
}
check "a scenario's plugin thread and Lua answering at once: 40 processes, none hangs" forty_runs
row "Scenario whose plugin thread and Lua answer at once (both first to use a Swift type in its process), 40 processes" 40 \
  "every one passes; 1 in 7 hung before (the forked thread's copied thread id)"
