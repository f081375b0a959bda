# The hostile pass over replay's steps (format 2): a step edited in twice, and
# thousands of interceptor ids that every stand-in's answer is rewritten with.

# Two steps of one scenario with one seq: the second would not be replayed (replay does
# one step a seq), so a trace edited so reads as clean; it is refused, naming both lines.
good='{"image":"placeholder.png","note":"no image was given","page":"ImageViewController"}'
printf '%s\n' \
  "{\"trace\":2,\"script\":\"s\",\"scenario\":\"dup\",\"seq\":1,\"op\":\"perform\",\"args\":[\"A\",\"nativeNoImage\"],\"returns\":[$good]}" \
  '{"trace":2,"script":"s","scenario":"dup","seq":1,"op":"perform","args":["A","nativeNoImage"],"returns":["WRONG"]}' \
  > "$work/dup.jsonl"
check "two steps of a scenario with one seq: 64, naming both lines" \
  usage dup 'dup.jsonl line 2: a second step with "seq" 1 in this scenario (the first is line 1)' \
  replay --plugin "$module_a" "$work/dup.jsonl"
# A scenario's step with the seq of a step of its script's top level: it differs.
printf '%s\n' \
  "{\"trace\":2,\"script\":\"s\",\"scenario\":null,\"seq\":1,\"op\":\"perform\",\"args\":[\"A\",\"nativeNoImage\"],\"returns\":[$good]}" \
  "{\"trace\":2,\"script\":\"s\",\"scenario\":null,\"seq\":1,\"op\":\"perform\",\"args\":[\"A\",\"nativeNoImage\"],\"returns\":[$good]}" \
  '{"trace":2,"script":"s","scenario":"shadow","seq":1,"op":"perform","args":["A","nativeNoImage"],"returns":["WRONG"]}' \
  > "$work/shadow.jsonl"
run shadow replay --plugin "$module_a" "$work/shadow.jsonl"
check "a scenario's step with a top-level step's seq: not replayed, and it differs (exit 1)" bash -c "
  [ \$(cat '$work/shadow.status') = 1 ] && grep -q 'a second step with this seq: not replayed' '$work/shadow.tap' \
    || { cat '$work/shadow.tap' '$work/shadow.err'; exit 1; }"

# 4,000 interceptors set and removed, then 2,000 calls of the script's target: each
# stand-in's args are written with the recorded ids in one pass, not one per id (that
# was 4,000 x 2,000 Lua steps, past this instruction limit).
$py -c "
import json
seq = 0
def step(**k):
    global seq
    seq += 1
    r = {'trace': 2, 'script': 's', 'scenario': 'ids', 'seq': seq}
    r.update(k)
    print(json.dumps(r))
step(op='target', args=['T', {'a': {'\$fn': 1}}], returns=[True])
for i in range(4000):
    step(op='intercept', args=[0, {'\$fn': 1000 + i}], returns=[1000000 + i])
    step(op='unintercept', args=[1000000 + i], returns=[True])
for i in range(2000):
    step(op='perform', args=['T', 'a'], returns=[1])
    step(op='invoked', fn=1, args=[{}], returns=[1])" > "$work/ids.jsonl"
run ids replay --max-instructions 40000000 "$work/ids.jsonl"
check "4,000 interceptor ids and 2,000 stand-in calls: within 40,000,000 instructions, all the same" bash -c "
  [ \$(cat '$work/ids.status') = 0 ] && grep -q '^# 12001 calls replayed: 12001 same, 0 differ' '$work/ids.tap' \
    || { tail -n 8 '$work/ids.tap' '$work/ids.err'; exit 1; }"
row "switchboard replay of a scenario with two steps of one seq, a step with a top-level step's seq, and 4,000 interceptor ids over 2,000 stand-in calls" 3 \
  "the twin seq is a usage error naming both lines; the shadowed step differs; the ids are rewritten in one pass (bounded instructions)"
