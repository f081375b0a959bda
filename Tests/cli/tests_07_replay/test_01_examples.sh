# switchboard replay of the examples' traces.
run examples_traced run "${load[@]}" --trace "$work/examples.jsonl" "$examples"/scenarios/*.lua
replay_run replay_examples "$work/examples.jsonl" --junit "$work/replay.xml"
check "replay of every example's trace on the same build: every step the same, none skipped, exit 0" \
  $py "$here/replay_examples.py" "$work/replay_examples.tap" "$work/replay_examples.status" "$work/examples.jsonl" "$work/replay.xml"
check "replay of the committed example trace (examples/scenarios/module_a.jsonl): nothing differs, exit 0" bash -c "
  cd '$examples' && '$sb' replay --plugin ./module_a.so scenarios/module_a.jsonl > '$work/committed.tap' \
    && grep -q '^# 14 calls replayed: 14 same, 0 differ, 0 skipped' '$work/committed.tap' || { cat '$work/committed.tap'; exit 1; }"
run format1 replay "${load[@]}" "$here/format1.jsonl"
check "a trace of format 1 (before traces recorded the script's steps) still replays, as it did, and says so on standard error" \
  bash -c "[ \$(cat '$work/format1.status') = 0 ] && grep -q '^# 8 calls replayed: 6 same, 0 differ, 2 skipped' '$work/format1.tap' \
    && grep -q 'held <userdata>' '$work/format1.tap' && grep -q 'format1.jsonl is a trace of format 1' '$work/format1.err' \
    || { cat '$work/format1.tap' '$work/format1.err'; exit 1; }"
printf '%s\n' '{"time":"t","script":"s.lua","scenario":"prints","depth":1,"call":"perform","target":"A","action":"showAlert","params":{"message":"Hello"},"result":"no callback for the tapped button","duration_us":1}' > "$work/prints.jsonl"
replay_run prints "$work/prints.jsonl"
check "what a plugin prints while replayed goes to standard error, off the TAP stream" bash -c "
  [ \$(cat '$work/prints.status') = 0 ] && ! grep -q 'alert:' '$work/prints.tap' && grep -q 'alert: \"Hello\"' '$work/prints.err' \
    && grep -q '^ok 1 - s.lua: prints' '$work/prints.tap' || { cat '$work/prints.tap' '$work/prints.err'; exit 1; }"
