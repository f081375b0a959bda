# Escapes found in review: each refused or bounded, the report whole.
run escapes run "${load[@]}" --timeout 5 --junit "$work/escapes.xml" $scenarios/escapes.lua
check "escapes found in review are refused or bounded, and the report stays whole" $py "$here/escapes.py" "$work/escapes.tap" "$work/escapes.xml"
row "Scenario reports with NUL bytes (an error message, its traceback, an expectation's message, output)" 4 \
  "TAP and JUnit show each NUL escaped (a backslash and 0) and keep the text after it"
run escapes2 run "${load[@]}" $scenarios/escapes_again.lua
check "escapes found in a second review are refused" status_is escapes2 0
row "Scenario gives sb.array a table with a locked metatable (an expectation, a caught expectation failure)" 2 \
  "an argument error; the metatable stays; a failure's metatable answers a string, not the runner's marker"
run finalizers run --timeout 5 --grace 2 $scenarios/finalizers.lua
check "the module's metatables are locked when made: no finalizer gets in, the run goes on" status_is finalizers 0
row "Scenario sets __gc on a metatable the module made (sb.array's marker, an array from a call, the lazily made cancellation token's)" 3 \
  "getmetatable answers a string; no finalizer is registered; the run goes on"
