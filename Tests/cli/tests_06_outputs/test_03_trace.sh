# --trace: one JSON object per call.
run trace run "${load[@]}" --trace "$work/trace.jsonl" $scenarios/trace.lua
check "--trace writes one JSON object per perform and open" $py "$here/trace.py" "$work/trace.jsonl"
