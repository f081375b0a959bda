# A process per scenario: what it leaves stays in it, a crash or an exit is its own;
# while a plugin's thread runs, scenarios run in the runner's process instead.
SB_PROCESS_PLUGIN="$process_plugin" run processes run "${load[@]}" --allow-os --verbose --junit "$work/processes.xml" \
  $scenarios/processes.lua $scenarios/isolation.lua
check "a process per scenario: globals, targets, routes, a loaded plugin and its state, interceptors stay in it; a crash (abort) or an exit is reported and the run goes on" \
  $py "$here/processes.py" "$work/processes.tap" "$work/processes.xml"
check "... and the run exits 1" status_is processes 1
row "Scenario ends the process it runs in: a C action calls abort(); os.exit(7) under --allow-os" 2 \
  "reported as an error naming the signal or the exit status; the scenarios after it run (each scenario has a process of its own)"
row "Scenario leaves globals, targets, routes, a plugin it loaded (with that plugin's static state) and an interceptor behind" 1 \
  "the next scenario sees none of them: it starts from a copy of the state the top level left"
SB_PROCESS_PLUGIN="$process_plugin" run threaded run --allow-os --verbose $scenarios/threaded.lua
check "a thread running when a scenario would fork (a plugin's): scenarios run in the runner's process, still isolated" bash -c "
  [ \$(cat '$work/threaded.status') = 0 ] && [ \$(grep -c '^# pid ' '$work/threaded.tap') = 2 ] \
    && [ \$(grep '^# pid ' '$work/threaded.tap' | sort -u | wc -l) = 1 ] || { cat '$work/threaded.tap'; exit 1; }"
check "... and it says so on standard error, with the reason" has threaded.err \
  "scenarios run in the runner's own process, one after another.*other threads are running"
row "A plugin starts a thread at the top level, so a forked copy of the runner could find a lock another thread held" 1 \
  "scenarios run in the runner's own process instead, each in a fresh state where the top level runs again; isolation holds"
