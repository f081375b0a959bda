# switchboard replay of trace.lua's trace, of it edited, and of values that must round-trip.
record_trace "$work/trace.jsonl"
replay_run replay_trace "$work/trace.jsonl"
check "replay of trace.lua: the refused URL is refused again, ENOTARGET compares by code, sb.target's target stands in for itself" \
  $py "$here/replay_trace.py" "$work/replay_trace.tap" "$work/replay_trace.status"

# A record edited to say another result, and one claiming a refused URL succeeded.
edit_trace "$work/trace.jsonl" "$work/edited.jsonl"
replay_run replay_edited "$work/edited.jsonl"
check "a step edited to another result, or to other params for the script's own target, differs: exit 1, the YAML names the calls, recorded and now" \
  $py "$here/replay_edited.py" "$work/replay_edited.tap" "$work/replay_edited.status" "$work/edited.jsonl"

# Hand-written records: values that must round-trip, errors compared by code.
record_roundtrip "$work/roundtrip.jsonl"
run roundtrip replay --targets $echo_targets "$work/roundtrip.jsonl"
check "bytes, NaN, infinities, 3.0 and a failure's changing message replay the same" bash -c "
  [ \$(cat '$work/roundtrip.status') = 0 ] && grep -q '^ok 1 ' '$work/roundtrip.tap' \
    && grep -q '# 3 calls replayed: 3 same, 0 differ, 0 skipped' '$work/roundtrip.tap' \
    && grep -q '\"\$bytes\":\"ff00fe\"' '$work/roundtrip.jsonl' && grep -q '\"nan\":\"NaN\"' '$work/roundtrip.jsonl' \
    || { cat '$work/roundtrip.tap' '$work/roundtrip.err' '$work/roundtrip.jsonl'; exit 1; }"
