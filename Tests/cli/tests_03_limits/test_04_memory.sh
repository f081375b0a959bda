# --max-memory: what a pcall cannot swallow, what the library holds for a scenario,
# and the runner's own memory.
run swallowed run --max-memory 16 $scenarios/swallowed.lua
check "a pcall cannot swallow the memory limit; a 1 MiB error message is cut in the report" $py "$here/swallowed.py" "$work/swallowed.tap"
row "Scenario catches the memory limit with pcall (string.rep into a table) and goes on" 1 \
  "the limit is the scenario's outcome: a refusal the script saw trips it, whatever catches the error"
row "Scenario raises an error of 1 MiB (32 MiB in review)" 1 "the report keeps its first 128 KiB and says how many bytes were cut"
# One scenario here registers and unregisters 1 MiB names for about 25 s of
# CPU; the timeout is far above that so a loaded machine does not end it.
run charged run --max-memory 32 --timeout 300 $scenarios/charged.lua
check "what the library keeps for a scenario counts against --max-memory" $py "$here/charged.py" "$work/charged.tap"
row "Scenario makes the library hold memory: 600 targets with 1 MiB names, a table sharing a subtable at 20 levels, 400 schemes, interceptors and route handlers with 256 KiB names, under --max-memory 32" 5 \
  "the memory limit stops it (charged to the scenario); unregistering, unrouting, sb.scheme(name, false), unintercepting, unobserving and replacing the rules give the charge back; the run goes on"
row "Scenario defines 400 services with 256 KiB interfaces under --max-memory 32, and defines, binds, unbinds, redefines and removes services named and bound with 512 KiB names 20 times" 2 \
  "the memory limit stops the first (charged to the scenario); binding, unbinding, redefining, removing and refusals give the charge back; the run goes on"
row "Scenario names a target after a route's charge (\"pattern:\" .. p) and unregisters it, 400 times, under --max-memory 32" 1 \
  "the memory limit stops it: each kind of name is charged under a key no name can spell"
check "a top level churning through 40 block sizes under --max-memory 16 passes, and the runner stays under 150 MiB" \
  $py "$here/churn.py" "$sb" "$scenarios/churn.lua"
row "Top level churns through 40 block sizes (8 MiB of strings each, dropped) under --max-memory 16" 1 \
  "it runs as it did before scenarios were forked; the memory parked by size in the prepared state is capped (peak RSS under 150 MiB)"
