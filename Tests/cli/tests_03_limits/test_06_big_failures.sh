# Failures whose report could be huge: 3,000 steps, tables shared or of a million entries.
run steps run $scenarios/steps.lua
check "step names are at most 1024 bytes; a report shows 1,000 steps at most, saying how many it leaves out" \
  $py "$here/steps.py" "$work/steps.tap"
row "Scenario names a step with 120 KB, 2,000 times (the runner's memory reached 953 MB in review), or runs 3,000 steps" 2 \
  "a step name past 1024 bytes is refused where it is given; a report lists the first and last 500 steps and how many it leaves out"
run big_tables run --max-instructions 40000000 --timeout 60 $scenarios/big_tables.lua
check "failures on a shared or a huge table are reported within 40 million instructions, cut short; __tostring names an error object" \
  $py "$here/big_tables.py" "$work/big_tables.tap"
row "Expectation fails on a table shared 20 ways at 6 levels, and on an array of a million (timed out, and 16.7 s, in review)" 2 \
  "reported as the failure, within 40 million instructions: a message shows 400 entries in all, and the first difference is found without sorting every key"
