# switchboard replay of files that are not traces, and of forged ones.
record_trace "$work/trace.jsonl"
# not_a_trace NAME PATTERN: replay of $work/NAME.jsonl exits 64 with PATTERN on stderr, no TAP.
not_a_trace() {
  replay_run "$1" "$work/$1.jsonl"
  status_is "$1" 64 && has "$1.err" "$2" && [ ! -s "$work/$1.tap" ]
}
good=$(head -1 "$work/trace.jsonl")
printf '%s\nnot json\n' "$good" > "$work/malformed.jsonl"
check "a line that is not JSON: 64, naming the line" not_a_trace malformed "malformed.jsonl line 2: not JSON"
printf '%s\n{"call":"perform","target":"A","action":"x","params":{},"result":1}\n' "$good" > "$work/old.jsonl"
check "a record without script and depth (an older trace): 64, naming the line" not_a_trace old 'old.jsonl line 2: no "script"'
printf '%s\n[1,2]\n' "$good" > "$work/array.jsonl"
check "a JSON line that is not an object: 64" not_a_trace array "array.jsonl line 2: not a JSON object"
printf '%s\n' "$good" | sed 's/"params"/"par\xffams"/' > "$work/utf8.jsonl"
check "invalid UTF-8: 64, naming the line" not_a_trace utf8 "utf8.jsonl line 1: not JSON"
printf '%s\n' "$good" | sed 's/"k1"/"k\x001"/' > "$work/nul.jsonl"
check "a NUL byte: 64, naming the line and byte" not_a_trace nul "nul.jsonl line 1: a NUL byte at byte"
$py -c "import sys; sys.stdout.write('{\"x\":\"' + 'a' * (17 << 20) + '\"}\n')" > "$work/huge.jsonl"
check "a line over 16 MiB: 64, before it is read whole" not_a_trace huge "huge.jsonl line 1: longer than 16 MiB"
$py -c "print('{\"time\":\"t\",\"script\":\"s\",\"scenario\":\"deep\",\"depth\":1,\"call\":\"perform\",\"target\":\"A\",\"action\":\"nativeNoImage\",\"params\":{\"d\":' + '[' * 300 + ']' * 300 + '},\"result\":null}')" > "$work/deep.jsonl"
check "JSON nested past SB_MAX_DEPTH: 64" not_a_trace deep "deep.jsonl line 1: not JSON"
$py -c "print('{\"time\":\"t\",\"script\":\"s\",\"scenario\":\"deep\",\"depth\":1,\"call\":\"perform\",\"target\":\"Echo\",\"action\":\"echo\",\"params\":{\"d\":' + '[' * 150 + ']' * 150 + '},\"result\":null}')" > "$work/deep150.jsonl"
run deep150 replay --targets $echo_targets "$work/deep150.jsonl"
check "params 150 deep are re-issued; the result compares as the trace writes it (cut at 32 levels)" bash -c "
  [ \$(cat '$work/deep150.status') = 1 ] && grep -q 'too deep' '$work/deep150.tap' || { cat '$work/deep150.tap' '$work/deep150.err'; exit 1; }"
: > "$work/empty.jsonl"
replay_run replay_empty "$work/empty.jsonl"
check "an empty trace: an empty plan, exit 0" bash -c "
  [ \$(cat '$work/replay_empty.status') = 0 ] && grep -q '^1..0 # SKIP' '$work/replay_empty.tap'"
printf '%s\n' \
  '{"time":"t","script":"forged.lua","scenario":"native by URL","depth":1,"call":"open","url":"app://A/nativeFetchDetailViewController?key=1","params":{"key":"1"},"result":{"page":"DemoModuleADetailViewController","title":"1"},"duration_us":1}' \
  '{"time":"t","script":"forged.lua","scenario":"native by URL","depth":1,"call":"open","url":"APP://A/%6Eative%4EoImage","params":{},"result":{"image":"placeholder.png"},"duration_us":1}' \
  > "$work/forged.jsonl"
replay_run forged "$work/forged.jsonl"
check "a trace claiming native* URLs succeeded: the URL policy refuses them again (differs, exit 1)" $py "$here/forged.py" "$work/forged.tap" "$work/forged.status"
run replay_missing replay "$work/no-such.jsonl"
check "a trace that is not there: 64" bash -c "[ \$(cat '$work/replay_missing.status') = 64 ] && grep -q 'no-such.jsonl: No such file' '$work/replay_missing.err'"
row "switchboard replay over hostile traces (not JSON, not an object, old records, invalid UTF-8, a NUL byte, a 17 MiB line, 300-deep JSON, forged native* URLs)" 8 \
  "exit 64 naming the line for each malformed file; forged native* URLs refused again by the URL policy"
