# --jobs: scenarios at once, reported in their order.
mkdir -p "$work/meet2" "$work/meet1"
SB_MEETING="$work/meet2" run jobs2 run --allow-os --jobs 2 --trace "$work/jobs2.jsonl" $scenarios/jobs.lua
check "--jobs 2 runs two scenarios at once (each waits for the other); the report and the trace keep the scenarios' order" \
  $py "$here/jobs2.py" "$work/jobs2.tap" "$work/jobs2.jsonl" "$work/jobs2.status"
SB_MEETING="$work/meet1" run jobs1 run --allow-os --jobs 1 $scenarios/jobs.lua
check "--jobs 1 runs them one after another (the first waits in vain)" \
  has jobs1.tap "second never ran at the same time as first"
run jobs0 run --jobs 0 $scenarios/jobs.lua
check "--jobs 0 is a usage error" bash -c "[ \$(cat '$work/jobs0.status') = 64 ] && grep -q 'jobs must be from 1 to 1024' '$work/jobs0.err'"
row "Scenarios run 2 at once (--jobs 2), the later one finishing first" 1 \
  "TAP, JUnit and trace lines keep the order the scenarios are listed in"
