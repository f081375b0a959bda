# Traces of format 2: call options and the script's own targets and functions are recorded
# and replayed, and a replay of the same trace on a changed build fails (the gate can fail).
price=Tests/cli/targets/replay
run steps_rec run "${load[@]}" --targets $price --trace "$work/steps.jsonl" \
  $scenarios/replay_options.lua $scenarios/replay_own_targets.lua
run steps replay "${load[@]}" --targets $price "$work/steps.jsonl"
check "options (timeout, cache, fallback, tags, bypass, a cancelled token, an async function) and the script's targets, fallback, URL pattern, callback and sb.later are recorded; replayed on the same build: all the same, none skipped, exit 0" \
  $py "$here/steps.py" same "$work/steps_rec.status" "$work/steps.jsonl" "$work/steps.tap" "$work/steps.status"

# What a misuse of the module raises reads the same with --trace (the steps' wrappers
# raise it again as the module did: at the script's line, under the name it was called by).
cat > "$work/misuse.lua" <<'LUA'
scenario("misuse", function()
  print(select(2, pcall(function() sb.target(1) end)))
  print(select(2, pcall(sb.intercept, "x")))
  print(select(2, pcall(function() local e = sb.evict; e() end)))
end)
LUA
run misuse run -v "$work/misuse.lua"
run misuse_traced run -v --trace "$work/misuse.jsonl" "$work/misuse.lua"
check "a misuse raises the same message with --trace as without" bash -c "
  grep '^# ' '$work/misuse.tap' | grep -v '# 1 passed' > '$work/misuse.lines' && grep -q \"misuse.lua:2: bad argument #2 to 'target'\" '$work/misuse.lines' \
    && grep -q \"bad argument #1 to 'switchboard.intercept'\" '$work/misuse.lines' && grep -q \"misuse.lua:4: bad argument #1 to 'e'\" '$work/misuse.lines' \
    && grep '^# ' '$work/misuse_traced.tap' | grep -v '# 1 passed' | diff '$work/misuse.lines' -"

# The same trace without its options: the calls whose answers the options made differ.
$py -c "
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get('op') == 'perform': r['args'] = r['args'][:3]
    print(json.dumps(r))" "$work/steps.jsonl" > "$work/no_options.jsonl"
run no_options replay "${load[@]}" --targets $price "$work/no_options.jsonl"
check "the options are what the replay passes: without them, the timeout, cache, fallback, tags, bypass and cancel calls differ" \
  $py "$here/steps.py" no_options "$work/no_options.tap" "$work/no_options.status"

# A new build: Target_Price.lua asks the script's Tax target with the country in lower
# case, and computes the total as a float (120.0 is not 120). The replay sees both.
mkdir -p "$work/price2"
cat > "$work/price2/Target_Price.lua" <<'LUA'
return {
  quote = function(p)
    local tax = sb.perform("Tax", "rate", { country = string.lower(p.country) })
    return { total = p.net * (1 + tax.rate / 100) }
  end,
}
LUA
run changed replay "${load[@]}" --targets "$work/price2" "$work/steps.jsonl"
check "a changed build: what it gives the script's target and what it answers differ, exit 1 (the gate fails)" \
  $py "$here/steps.py" changed "$work/changed.tap" "$work/changed.status" "$work/steps.jsonl"

# A target of the build replacing sb.perform in the table every target shares: the replay
# keeps calling the module's own.
mkdir -p "$work/evil"
printf 'return { x = function() sb.perform = function() return nil, "gone", "ENOTARGET" end return 1 end }\n' \
  > "$work/evil/Target_Evil.lua"
cat > "$work/evil.jsonl" <<'JSONL'
{"trace":2,"script":"s","scenario":"replaced","seq":1,"op":"perform","args":["Evil","x"],"returns":[1]}
{"trace":2,"script":"s","scenario":"replaced","seq":2,"op":"perform","args":["A","nativeNoImage"],"returns":[{"image":"placeholder.png","note":"no image was given","page":"ImageViewController"}]}
JSONL
run evil replay --plugin "$module_a" --targets "$work/evil" "$work/evil.jsonl"
check "a target that replaces sb.perform does not answer for the replay's calls" bash -c "
  [ \$(cat '$work/evil.status') = 0 ] && grep -q '# 2 calls replayed: 2 same' '$work/evil.tap' \
    || { cat '$work/evil.tap' '$work/evil.err'; exit 1; }"

# Formats: a newer one is refused by name; two in one file are refused.
good=$(grep -m1 '"op":"perform"' "$work/steps.jsonl")
printf '%s\n' "${good/\"trace\":2/\"trace\":3}" > "$work/newer.jsonl"
usage_replay() { run "$1" replay "$work/$1.jsonl"; status_is "$1" 64 && has "$1.err" "$2" && [ ! -s "$work/$1.tap" ]; }
check "a trace of a newer format: 64, naming the formats this one reads" \
  usage_replay newer "newer.jsonl line 1: trace format 3 is newer than this switchboard reads (formats 1 to 2)"
{ head -1 "$here/format1.jsonl"; printf '%s\n' "$good"; } > "$work/mixed.jsonl"
check "lines of two formats in one file: 64" usage_replay mixed "mixed.jsonl line 2: trace format 2, but the lines before it are format 1"
printf '%s\n' "${good/\"op\":\"perform\"/\"op\":\"load_plugin\"}" > "$work/forged_op.jsonl"
run forged_op replay "$work/forged_op.jsonl"
check "a step naming a function a trace does not record (sb.load_plugin) is not called: it differs" bash -c "
  [ \$(cat '$work/forged_op.status') = 1 ] && grep -q 'not a step a trace records' '$work/forged_op.tap' \
    || { cat '$work/forged_op.tap' '$work/forged_op.err'; exit 1; }"
# A scenario of 10,000 steps: their answers are more than the runner hands over at once
# (128 KiB), so they come a page at a time; all of them are counted.
printf 'scenario("many", function() for i = 1, 10000 do sb.perform("A", "nativeNoImage") end end)\n' > "$work/many.lua"
run many_rec run --plugin "$module_a" --trace "$work/many.jsonl" "$work/many.lua"
run many replay --plugin "$module_a" "$work/many.jsonl"
check "10,000 steps in one scenario: every answer reported" bash -c "
  [ \$(cat '$work/many.status') = 0 ] && grep -q '^# 10000 calls replayed: 10000 same, 0 differ, 0 skipped' '$work/many.tap' \
    || { tail -n 5 '$work/many.tap' '$work/many.err'; exit 1; }"

# Forged steps (forged_steps.jsonl, a scenario each): "in" naming the step itself or none, a
# call of a function never registered, a "replied" with no call to answer or a table for its
# argument, a recursion cut short, a stand-in for a target's name, a raise, bytes for a name.
run forged_steps replay --plugin "$module_a" "$here/forged_steps.jsonl"
check "forged steps: each is answered (differs, or the same where it is), none is dropped, nothing crashes" bash -c "
  [ \$(cat '$work/forged_steps.status') = 1 ] && [ \$(grep -c '^not ok ' '$work/forged_steps.tap') = 7 ] \
    && grep -q '^ok 2 - s: orphan' '$work/forged_steps.tap' && grep -q '^ok 8 - s: raised' '$work/forged_steps.tap' \
    && grep -q '^# 18 calls replayed: 10 same, 8 differ, 0 skipped' '$work/forged_steps.tap' \
    || { cat '$work/forged_steps.tap' '$work/forged_steps.err'; exit 1; }"
row "switchboard replay of forged steps of format 2 (in naming itself or nothing, an unknown function, a reply with nothing to answer, a recursion cut short, a stand-in as a target name, bytes as a name)" 9 \
  "every step is made or reported: what does not match the build differs (exit 1); none is dropped or loops"
row "switchboard replay of a trace of a newer format, of two formats joined, of a step naming sb.load_plugin, and on a build whose Lua target replaces sb.perform" 4 \
  "the newer format and the joined file are usage errors naming the formats; the forged step is not called (it differs); the replay keeps the module's own sb.perform"
