# skip and todo: # SKIP and # TODO in TAP, <skipped> in JUnit; a todo's
# failure does not fail the run; --strict fails a scenario that expects
# nothing and a todo that passes.
qa=$scenarios/qa
run st run --junit "$work/st.xml" $qa/skip_todo.lua
check "skips and todos do not fail the run; a scenario without expectations is a warning" bash -c "
  [ \$(cat '$work/st.status') = 0 ] && grep -q '1 scenario made no expectation' '$work/st.err'"
check "TAP directives, JUnit <skipped>, the summary" "$py" "$here/skip_todo.py" "$work/st.tap" "$work/st.xml"
check "prove accepts the stream (todo and skip directives)" bash -c "
  prove --exec '$sb run --tap-version 13' $qa/skip_todo.lua > '$work/prove.txt' 2>&1 || { cat '$work/prove.txt'; exit 1; }"
run strict run --strict $qa/skip_todo.lua
check "--strict: the scenario without expectations and the todo that passed fail (exit 1)" bash -c "
  [ \$(cat '$work/strict.status') = 1 ] && grep -q '^not ok 4 - .*todo that passes' '$work/strict.tap' \
    && grep -q '^not ok 5 - .*expects nothing' '$work/strict.tap' && grep -q 'it made no expectation (--strict' '$work/strict.tap'"
cat > "$work/bad_skip.lua" <<'LUA'
scenario("skip outside", function() expect(1).to_equal(1) end)
skip("at the top level")
LUA
run badskip run "$work/bad_skip.lua"
check "skip() at the top level: the script does not load, saying why" bash -c "grep -q 'skip() outside a scenario' '$work/badskip.tap'"
cat > "$work/swallowed_skip.lua" <<'LUA'
scenario("pcall around skip", function()
  local ok = pcall(skip, "caught")
  expect(ok).to_be(false)
end)
LUA
run swskip run "$work/swallowed_skip.lua"
check "a pcall catches skip() as it would a failure: the scenario goes on and passes" status_is swskip 0
row "skip() at a script's top level; skip() caught by pcall; --strict with a todo that passes and a scenario without expectations" 4 \
  "load error naming the rule; the scenario goes on; --strict fails each, saying why"
