# Each limit stops its offender, and the run goes on.
run limits run "${load[@]}" --max-instructions 20000000 --max-memory 32 $scenarios/limits.lua
check "each limit stops its offender and the run continues" $py "$here/limits.py" "$work/limits.tap"
run timeout run "${load[@]}" --max-instructions 0 --timeout 1 --filter 'loops forever|after' $scenarios/limits.lua
check "--timeout stops a loop (with no instruction budget)" bash -c "
  grep -q 'the timeout of 1 s was reached (--timeout)' '$work/timeout.tap' && grep -q '^ok 2 ' '$work/timeout.tap'"
