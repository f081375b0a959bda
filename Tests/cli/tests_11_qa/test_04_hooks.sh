# Hooks (before_each/after_each in each scenario's process, before_all and
# after_all once), require of a helper beside the script from any
# working directory, and directories as arguments.
qa=$scenarios/qa
abs=$SB_ROOT/$qa
status=0
( cd / && "$sb" run -v "$abs/hooks.lua" ) > "$work/hooks.tap" 2> "$work/hooks.err" || status=$?
echo $status > "$work/hooks.status"
check "hooks run around each scenario, in its own copy; require finds qa_helper.lua from /" bash -c "
  grep -q '^ok 1 - .*sees before_all and before_each' '$work/hooks.tap' && grep -q '^ok 3 - .*a helper beside the script' '$work/hooks.tap'"
check "an after_each that fails fails its scenario, naming the hook" bash -c "
  grep -q '^not ok 2 - .*gets a fresh copy' '$work/hooks.tap' && grep -q 'step: \"(after_each)\"' '$work/hooks.tap'"
check "-v shows what the top level and before_all printed, once" bash -c "
  [ \$(grep -c 'before_all ran' '$work/hooks.tap') = 1 ] && grep -q '^# before_all ran$' '$work/hooks.tap'"
check "-v shows what after_all printed, once, with the last scenario run" bash -c "
  [ \$(grep -c 'after_all ran' '$work/hooks.tap') = 1 ] && grep -q '^# after_all ran$' '$work/hooks.tap' \
    && [ \"\$(grep -n 'after_all ran' '$work/hooks.tap' | cut -d: -f1)\" -gt \"\$(grep -n '^ok 3 ' '$work/hooks.tap' | cut -d: -f1)\" ]"
run beforeerr run $qa/before_each_error.lua
check "a before_each that raises: an error naming it, the body not run, after_each still ran" bash -c "
  grep -q '^not ok 1' '$work/beforeerr.tap' && grep -q 'before_each broke' '$work/beforeerr.tap' \
    && grep -q 'step: \"(before_each)\"' '$work/beforeerr.tap' && ! grep -q 'expected true' '$work/beforeerr.tap'"
run afterall run $qa/bad_hooks.lua
check "an after_all that raises is told on the last scenario run, and fails the run" bash -c "
  [ \$(cat '$work/afterall.status') = 1 ] && grep -q '^ok 1 - .*runs first' '$work/afterall.tap' \
    && grep -q '^not ok 2 - .*runs, then after_all fails' '$work/afterall.tap' && grep -q 'after_all failed: .*after_all broke' '$work/afterall.tap'"
run hang run --timeout 1 $qa/hanging_hook.lua
check "a before_each that never returns: each scenario meets its timeout, the run goes on" bash -c "
  [ \$(cat '$work/hang.status') = 1 ] && [ \$(grep -c '^not ok' '$work/hang.tap') = 2 ] && grep -q 'outcome: \"limit\"' '$work/hang.tap'"
run hangall run --timeout 1 $qa/hanging_after_all.lua
check "an after_all that never returns: stopped by the scenario's limits, told on the last scenario" bash -c "
  [ \$(cat '$work/hangall.status') = 1 ] && grep -q '^not ok 1' '$work/hangall.tap' && grep -q '^1..1$' '$work/hangall.tap'"
cat > "$work/crash_hook.lua" <<'LUA'
before_each(function() sb.perform("NoSuch", "x"); local t = setmetatable({}, { __index = function(t, k) return t[k] end }); return t.x end)
scenario("a hook that recurses forever", function() expect(1).to_equal(1) end)
scenario("the next one also gets the hook", function() expect(1).to_equal(1) end)
LUA
run crash run "$work/crash_hook.lua"
check "a hook that overflows the stack: an error on each scenario, the run goes on" bash -c "
  [ \$(cat '$work/crash.status') = 1 ] && [ \$(grep -c '^not ok' '$work/crash.tap') = 2 ] && grep -q 'stack overflow' '$work/crash.tap'"
cat > "$work/hook_args.lua" <<'LUA'
before_each("not a function")
LUA
run hookargs run "$work/hook_args.lua"
check "a hook given something that is not a function: the script does not load" bash -c "grep -q 'before_each(fn): fn must be a function' '$work/hookargs.tap'"

run dir run $qa/suite
check "a directory runs every *.lua inside (not Target_*.lua), in the order of their names" bash -c "
  [ \$(cat '$work/dir.status') = 0 ] && grep -q '^1..3$' '$work/dir.tap' \
  && [ \"\$(grep -o '^ok [0-9] - [^:]*' '$work/dir.tap' | sed 's/.*suite//' | tr '\n' ' ')\" = '/a_first.lua /c_last.lua /sub/b_nested.lua ' ]"
deep="$work/deep"
for i in $(seq 1 17); do deep="$deep/d$i"; done
mkdir -p "$deep" && cp $qa/suite/a_first.lua "$deep/" && cp $qa/suite/a_first.lua "$work/deep/"
run deepdir run "$work/deep"
check "a directory deeper than 16 levels: the run stops before any script runs (exit 64), saying why" bash -c "
  [ \$(cat '$work/deepdir.status') = 64 ] && grep -q 'levels deep: the walk stopped there, so no script runs' '$work/deepdir.err' \
    && ! grep -q '^ok' '$work/deepdir.tap'"
row "Hooks that raise (before_each, after_each, after_all), never return (before_each, after_all), overflow the stack, or are not functions" 6 \
  "the scenario fails or errs naming the hook (a step '(before_each)'); limits stop a stuck hook; the run goes on; a bad hook() call fails the load"
