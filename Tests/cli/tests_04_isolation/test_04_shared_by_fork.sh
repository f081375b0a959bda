# What a fork shares that a scenario must not (isolation.c), and what a
# hostile scenario or plugin tried against the runner once scenarios were
# forked: each is that scenario's problem only. And what a top level
# chooses for its scenarios (os.exit, a seed).
seq 1 2000 > "$work/lines.txt"
SB_DATA_FILE="$work/lines.txt" run shared run --plugin "$process_plugin" --verbose --junit "$work/shared.xml" \
  $scenarios/shared_by_fork.lua
check "a file the top level opened, the random seed, the runner's report, its process group, the report's pipe and processes left running are not shared between scenarios" \
  $py "$here/shared.py" "$work/shared.tap" "$work/shared.xml" "$work/shared.status"
row "Scenario reads on in a file the top level opened, after another scenario read it to its end" 2 \
  "each reads from where the top level left it: a scenario's process reopens the file (its own position)"
row "Scenarios draw from math.random, and call math.randomseed() with no arguments" 2 \
  "each scenario draws its own numbers: a scenario's process is seeded afresh, and randomseed() draws a seed from entropy"
row "Plugin in a scenario writes forged TAP into every file it can write, signals its process group (kill(0, SIGTERM)), closes every descriptor, leaves a process running" 4 \
  "no forged line reaches the report (the runner's descriptors are closed in a scenario's process); the signal ends that scenario only (a session of its own); a closed pipe is reported as such; the process left ends with its scenario"
printf 'os.exit(0)\nscenario("never runs", function() end)\n' > "$work/exit_top.lua"
run exit_top run "${load[@]}" --allow-os "$work/exit_top.lua" $scenarios/isolation.lua
check "os.exit at the top level (under --allow-os) is an error of that script; the run goes on and reports" bash -c "
  [ \$(cat '$work/exit_top.status') = 1 ] && grep -q 'os.exit in the runner.s own process .* would end the whole run' '$work/exit_top.tap' \
    && grep -q '^# [0-9]* passed, 1 failed' '$work/exit_top.tap' || { cat '$work/exit_top.tap' '$work/exit_top.err'; exit 1; }"
row "Script calls os.exit at its top level under --allow-os" 1 \
  "an error of that script (it would end the whole run); the other scripts run and the report is whole"
run seeded run --verbose $scenarios/seeded.lua
expected_draw=$(lua5.4 -e 'math.randomseed(42) print(math.random(1e9))')
check "a seed the top level chose stays: each scenario draws what it drew when it ran alone" bash -c "
  [ \$(grep -c '^# drew $expected_draw\$' '$work/seeded.tap') = 2 ] || { cat '$work/seeded.tap'; exit 1; }"
row "Script seeds math.random at its top level (math.randomseed(42))" 1 \
  "each scenario draws the numbers lua5.4 draws after that seed (a scenario's process is reseeded only when the script chose no seed)"
