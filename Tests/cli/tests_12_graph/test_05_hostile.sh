# The hostile pass over graph: a dot that never finishes, outputs that are
# not files or are the trace, formats it does not draw, 10,000 targets.
printf '%s\n' '{"trace":2,"script":"s","scenario":"a","depth":1,"call":"perform","target":"T","action":"a","params":{},"result":1}' \
  > "$work/one.jsonl"

# A dot that hangs (a graph too big to lay out looks the same): ended past --timeout,
# a failure that says so, no output left (timeout(1) turns a hang into a failure).
mkdir -p "$work/hangbin"
printf '#!/bin/sh\nexec sleep 1000\n' > "$work/hangbin/dot"
chmod +x "$work/hangbin/dot"
status=0
PATH="$work/hangbin:$PATH" timeout 60 "$sb" graph --timeout 1 --from-trace "$work/one.jsonl" -o "$work/hang.svg" \
  > "$work/hang.tap" 2> "$work/hang.err" || status=$?
echo $status > "$work/hang.status"
check "a dot that never finishes: ended past --timeout, exit 1 saying so, no file left" bash -c "
  [ \$(cat '$work/hang.status') = 1 ] && grep -q 'did not finish within 1.0 s (--timeout): it was ended' '$work/hang.err' \
    && [ ! -e '$work/hang.svg' ] && [ -z \"\$(ls -A '$work' | grep '^\.hang')\" ] || { cat '$work/hang.err'; ls -A '$work'; exit 1; }"

# -o naming a directory, a FIFO, the trace itself; --format values it does not draw.
mkdir -p "$work/outdir"
mkfifo "$work/out.fifo"
check "-o a directory: 64" usage out_dir "not a regular file" graph --from-trace "$work/one.jsonl" -o "$work/outdir"
check "-o a FIFO: 64, nothing blocks" usage out_fifo "not a regular file" graph --from-trace "$work/one.jsonl" -o "$work/out.fifo"
check "-o the trace itself: 64, the trace kept" bash -c "
  cp '$work/one.jsonl' '$work/keep.jsonl'
  '$sb' graph --from-trace '$work/keep.jsonl' -o '$work/keep.jsonl' 2> '$work/self.err'; [ \$? = 64 ] \
    && grep -q 'the same file as the trace' '$work/self.err' && cmp -s '$work/one.jsonl' '$work/keep.jsonl'"
for f in "" SVG pdf "dot;id" "svg "; do
  check "--format '$f': 64" usage "format_$(printf %s "$f" | tr -c 'a-zA-Z' _)" "--format must be dot, svg or png" \
    graph --format "$f" --from-trace "$work/one.jsonl"
done
check "--from-trace a FIFO: 64, nothing blocks" usage in_fifo "not a regular file" graph --from-trace "$work/out.fifo"

# 10,000 distinct targets: one node and one arrow each.
$py -c "
import json
for i in range(10000):
    print(json.dumps({'trace': 2, 'script': 's', 'scenario': 'a', 'depth': 1, 'call': 'perform',
                      'target': 'T%d' % i, 'action': 'a', 'params': {}, 'result': 1}))" > "$work/wide.jsonl"
run wide graph --from-trace "$work/wide.jsonl"
check "10,000 distinct targets: exit 0, 10,000 arrows" bash -c "
  [ \$(cat '$work/wide.status') = 0 ] && [ \$(grep -c -- '->' '$work/wide.tap') = 10000 ] || { head -c 2000 '$work/wide.err'; exit 1; }"
row "switchboard graph with a dot that never finishes, -o a directory, FIFO or the trace, --format values it does not draw, 10,000 targets" 10 \
  "dot ended past --timeout (exit 1, no file left); the outputs and formats are usage errors (64); the wide graph written whole"
