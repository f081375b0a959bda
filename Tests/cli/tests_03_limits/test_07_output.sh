# One limit for every way a scenario writes (issue 43, item 8).
run output run --junit "$work/output.xml" $scenarios/floods_output.lua
check "print, io.write, io.stdout:write and io.stderr:write share one limit of 64 KiB a scenario; the report says how much more was written" \
  $py "$here/output_limit.py" "$work/output.tap" "$work/output.xml" "$work/output.err"
row "Scenario writes 64 MiB each with io.stderr:write and io.stdout:write (1 GiB in 7.9 s in review), and prints 60 KiB before writing to standard error" 3 \
  "one limit of 64 KiB a scenario for print, io.write and the standard streams' write: past it, nothing more is written or kept, and the report says how many bytes were not"
