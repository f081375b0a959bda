# What a scenario starts ends with it, in whatever process group or session it went
# (issue 43, item 10).
mkdir -p "$work/pids"
check "processes a scenario started that left its process group (setpgrp) or session (setsid), or were orphaned, end with it, and when a signal stops the run" \
  $py "$here/escapees.py" "$sb" $scenarios/escapees.lua "$work/pids"
row "Scenario under --allow-os starts a process that calls setpgrp, one that calls setsid, and one orphaned in a session of its own; the run ends normally, or is stopped by SIGTERM" 6 \
  "each ends with the scenario (a scenario's process and the runner are child subreapers; the runner ends what a scenario's process leaves it); before, all but the orphan in the scenario's group survived"
# ... but what the top level started stays, even in a session of its own (found in the hostile pass).
SB_PROCESS_PLUGIN="$process_plugin" run helper run --allow-os --jobs 1 --verbose $scenarios/helper_session.lua
check "a helper a plugin started at the top level in a session of its own is left alone" status_is helper 0
for pid in $(sed -n 's/^# helper //p' "$work/helper.tap"); do kill "$pid" 2> /dev/null || true; done
