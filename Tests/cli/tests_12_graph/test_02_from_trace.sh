# switchboard graph --from-trace: a trace switchboard run --trace wrote, drawn
# as a run would be; files that are not traces refused, naming the line.
run record run "${load[@]}" --trace "$work/trace.jsonl" $scenarios/graph_calls.lua
run graph_run graph "${load[@]}" $scenarios/graph_calls.lua
run from_trace graph "${load[@]}" --from-trace "$work/trace.jsonl"
check "a trace drawn with the same plugin and targets gives the run's own graph, exit 0" bash -c "
  [ \$(cat '$work/from_trace.status') = 0 ] && cmp '$work/graph_run.tap' '$work/from_trace.tap' \
    || { cat '$work/from_trace.err'; diff '$work/graph_run.tap' '$work/from_trace.tap'; exit 1; }"
check "the trace says what answered a fallback (answered_by) and where a URL went" bash -c "
  grep -q '\"target\":\"Catalog\",\"action\":\"whatever\".*\"answered_by\":\"notFound\"' '$work/trace.jsonl' \
    && grep -q '\"target\":\"Ghost\",\"action\":\"walk\".*\"answered_by\":\"NoTargetAction\"' '$work/trace.jsonl' \
    && grep -q '\"call\":\"open\",\"url\":\"app://A/cell?identifier=Graph\",\"target\":\"A\",\"action\":\"cell\"' '$work/trace.jsonl' \
    && [ \$(grep -c answered_by '$work/trace.jsonl') = 2 ]"

run no_catalogue graph --from-trace "$work/trace.jsonl"
check "without --plugin or --targets: the calls and fallbacks, nothing grey, and the legend says why" bash -c "
  [ \$(cat '$work/no_catalogue.status') = 0 ] && grep -q 'Ghost.walk 1× (fallback)' '$work/no_catalogue.tap' \
    && ! grep -q '#e5e7eb' '$work/no_catalogue.tap' && grep -q '(no catalogue: with --plugin and --targets' '$work/no_catalogue.tap' \
    || { cat '$work/no_catalogue.tap' '$work/no_catalogue.err'; exit 1; }"
run old graph --plugin "$module_a" --from-trace "$examples/scenarios/module_a.jsonl"
check "a trace written before answered_by (the examples' module_a.jsonl) is drawn" bash -c "
  [ \$(cat '$work/old.status') = 0 ] && grep -q 'label=\"scenarios/module_a.lua\"' '$work/old.tap'"
: > "$work/empty.jsonl"
run empty graph --from-trace "$work/empty.jsonl"
check "an empty trace: an empty graph, exit 0" bash -c "[ \$(cat '$work/empty.status') = 0 ] && grep -q '^}' '$work/empty.tap'"

# not_a_trace NAME PATTERN: graph --from-trace $work/NAME.jsonl exits 64, PATTERN on stderr, nothing on stdout.
not_a_trace() { usage "$1" "$2" graph --from-trace "$work/$1.jsonl"; }
good=$(grep -m1 '"call":"perform"' "$work/trace.jsonl") # a call record (format 2 has step lines too)
printf '%s\nnot json\n' "$good" > "$work/malformed.jsonl"
check "a line that is not JSON: 64, naming the line" not_a_trace malformed "malformed.jsonl line 2: not JSON"
printf '[1,2]\n' > "$work/array.jsonl"
check "a JSON line that is not an object: 64" not_a_trace array "array.jsonl line 1: not a JSON object"
printf '%s\n' '{"call":"perform","target":"A","action":"x","params":{},"result":1}' > "$work/old_record.jsonl"
check "a record without script (an older trace): 64" not_a_trace old_record 'old_record.jsonl line 1: no "script"'
sed 's/"depth":[0-9]*/"depth":0/' <<< "$good" > "$work/depth.jsonl"
check "depth 0: 64" not_a_trace depth 'depth.jsonl line 1: no "depth"'
sed 's/"trace":2/"trace":3/' <<< "$good" > "$work/format.jsonl"
check "a trace format this build does not read: 64" not_a_trace format 'format.jsonl line 1: "trace" names a format'
sed 's/"call":"perform"/"call":"register"/' <<< "$good" > "$work/call.jsonl"
check "a call that is neither perform nor open: 64" not_a_trace call 'call.jsonl line 1: "call" must be'
sed 's/"result":/"answered_by":"somebody","result":/' <<< "$good" > "$work/by.jsonl"
check "an answered_by the graph does not know: 64" not_a_trace by 'by.jsonl line 1: "answered_by" must be'
sed 's/"target":"[^"]*"/"target":5/' <<< "$good" > "$work/number.jsonl"
check "a target that is a number: 64" not_a_trace number 'number.jsonl line 1: "target" must be a string'
printf '%s\n' "$good" | sed 's/"script"/"scr\xffipt"/' > "$work/utf8.jsonl"
check "invalid UTF-8: 64" not_a_trace utf8 "utf8.jsonl line 1: not UTF-8"
printf '%s\n' "$good" | sed 's/"script"/"scr\x00ipt"/' > "$work/nul.jsonl"
check "a NUL byte: 64, naming the byte" not_a_trace nul "nul.jsonl line 1: a NUL byte at byte"
check "a trace that is not there: 64" usage missing "no-such.jsonl: No such file" graph --from-trace "$work/no-such.jsonl"
check "a directory: 64" usage directory "a directory, expected a file" graph --from-trace "$work"

# Usage errors, before anything runs.
check "scripts and --from-trace together: 64" \
  usage both "scripts to run, or --from-trace, not both" graph --from-trace "$work/trace.jsonl" $scenarios/graph_calls.lua
check "neither: 64" usage neither "give scenario scripts to run, or --from-trace FILE" graph
check "--filter with --from-trace: 64" \
  usage filter_trace "not with --from-trace" graph --filter x --from-trace "$work/trace.jsonl"
check "an unknown --format: 64" usage format "--format must be dot, svg or png" graph --format pdf $scenarios/graph_calls.lua
check "-o naming the trace it reads: 64" \
  usage output_input "the same file as the trace" graph --from-trace "$work/trace.jsonl" -o "$work/trace.jsonl"
check "-o naming a script: 64" usage output_script "the same file as the script" graph -o $scenarios/graph_calls.lua $scenarios/graph_calls.lua
row "switchboard graph --from-trace over files that are not traces (not JSON, not an object, older records, depth 0, unknown call kinds and answered_by, a numeric target, invalid UTF-8, a NUL byte, missing, a directory)" 10 \
  "exit 64 naming the file and line, nothing written"
