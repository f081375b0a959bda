# The hostile pass over replay.
mkdir -p "$work/rp_targets" "$work/rp_wrap_only"
cat > "$work/rp_targets/Target_Counter.lua" <<'LUA'
local n = 0
return { bump = function() n = n + 1 return n end }
LUA
printf 'return { echo = function(p) return p end }\n' > "$work/rp_targets/Target_Echo.lua"
printf 'return { call = function(p) return sb.perform("Echo", "echo", p) end }\n' > "$work/rp_targets/Target_Wrap.lua"
cp "$work/rp_targets/Target_Wrap.lua" "$work/rp_wrap_only/"
printf 'return { x = function() sb.perform = function() return nil, "gone", "ENOTARGET" end return {} end }\n' \
  > "$work/rp_targets/Target_Evil.lua"
cat > "$work/rp_twins.lua" <<'LUA'
scenario("caf\u{E9}", function() expect(sb.perform("Counter", "bump")).to_equal(1) end)
scenario("cafe\u{301}", function() expect(sb.perform("Counter", "bump")).to_equal(1) end)
scenario("wraps", function() expect(sb.perform("Wrap", "call", { v = 1 })).to_equal({ v = 1 }) end)
LUA
run rp_record run --targets "$work/rp_targets" --trace "$work/rp_twins.jsonl" "$work/rp_twins.lua"
run rp_twins replay --targets "$work/rp_targets" "$work/rp_twins.jsonl"
run rp_nested replay --targets "$work/rp_wrap_only" "$work/rp_twins.jsonl"
cat > "$work/rp_evil.jsonl" <<'JSONL'
{"script":"s","scenario":"a","depth":1,"call":"perform","target":"Evil","action":"x","params":null,"result":{}}
{"script":"s","scenario":"a","depth":1,"call":"perform","target":"Echo","action":"echo","params":{"v":1},"result":{"v":999}}
JSONL
run rp_evil replay --targets "$work/rp_targets" "$work/rp_evil.jsonl"
run rp_none replay "$work/rp_evil.jsonl"
run rp_none2 replay "$work/rp_twins.jsonl"
cp "$work/rp_twins.jsonl" "$work/rp_keep.jsonl"
run rp_junit replay --targets "$work/rp_targets" --junit "$work/rp_keep.jsonl" "$work/rp_keep.jsonl"
check "replay: Unicode twins are two scenarios; a target a call reaches that is gone differs; a target cannot replace the harness's sb.perform; all skipped (format 1) exits 1; a target gone differs (format 2); --junit cannot overwrite the trace" bash -c "
  [ \$(cat '$work/rp_record.status') = 0 ] && [ \$(cat '$work/rp_twins.status') = 0 ] && grep -q '^1..3\$' '$work/rp_twins.tap' \
    && [ \$(cat '$work/rp_nested.status') = 1 ] && grep -q '^not ok 3 ' '$work/rp_nested.tap' \
    && [ \$(cat '$work/rp_evil.status') = 1 ] && grep -q '999' '$work/rp_evil.tap' \
    && [ \$(cat '$work/rp_none.status') = 1 ] && grep -q 'no call could be replayed' '$work/rp_none.err' \
    && [ \$(cat '$work/rp_none2.status') = 1 ] && grep -q '3 differ, 0 skipped' '$work/rp_none2.tap' \
    && [ \$(cat '$work/rp_junit.status') = 64 ] && cmp -s '$work/rp_keep.jsonl' '$work/rp_twins.jsonl' \
    || { tail -n 30 '$work'/rp_*.tap '$work'/rp_*.err; exit 1; }"
row "switchboard replay of a trace with Unicode-twin scenario names, a nested target gone, a target that replaces sb.perform, no loaded targets, --junit naming the trace" 5 \
  "twins are two scenarios; the gone nested target differs (exit 1); the harness keeps its own sb.perform; all calls skipped exits 1; --junit on the trace is a usage error"
