# Failures that read as busted's: a table diff one key a line, a helper's
# traceback, expect(r) keeping the call's reason, JUnit <failure> with the
# diff; -v shows the top level's print.
qa=$scenarios/qa
run f run -v --junit "$work/f.xml" $qa/failures.lua
check "table diff, helper traceback, kept reason, JUnit failure text, top-level print" "$py" "$here/failures.py" "$work/f.tap" "$work/f.xml"
run quiet run $qa/failures.lua
check "without -v the top level's print is not shown" lacks quiet.tap "top level says hello"
cat > "$work/wide.lua" <<'LUA'
scenario("many keys differ", function()
  local a, b = {}, {}
  for i = 1, 5000 do a["k" .. i] = i; b["k" .. i] = -i end
  expect(a).to_equal(b)
end)
LUA
run wide run "$work/wide.lua"
check "5,000 differing keys: 10 shown, the rest counted" bash -c "
  grep -q 'the tables differ at 5000 keys' '$work/wide.tap' && grep -q '... and 4990 more' '$work/wide.tap'"
run special run --junit "$work/special.xml" $scenarios/qa/special_names.lua
check "names and skip/todo reasons with < & \" ' ]]> # \\ survive TAP (no forged directive) and JUnit" \
  "$py" "$here/special.py" "$work/special.tap" "$work/special.xml"
check "prove sees no directive forged by a name or a reason (1 failure, 1 todo, 1 skip)" bash -c "
  ! prove --exec '$sb run --tap-version 13' $scenarios/qa/special_names.lua > '$work/prove.txt' 2>&1 \
  && grep -q 'Failed test:  1$' '$work/prove.txt' && grep -q '1 skipped' '$work/prove.txt' || { cat '$work/prove.txt'; exit 1; }"
cat > "$work/top_stderr.lua" <<'LUA'
io.stderr:write("top level to stderr\n")
scenario("one", function() expect(1).to_equal(1) end)
scenario("two", function() expect(2).to_equal(2) end)
LUA
run topstderr run "$work/top_stderr.lua"
check "what a top level writes to standard error appears once (it runs to list and to prepare)" bash -c "
  [ \$(grep -c 'top level to stderr' '$work/topstderr.err') = 1 ]"
