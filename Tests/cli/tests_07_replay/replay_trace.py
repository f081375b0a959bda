# replay_trace.py TAP STATUS: trace.lua's trace replays the same.
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert open(sys.argv[2]).read().strip() == "0" and len(tests) == 1 and tests[0].ok, open(sys.argv[1]).read()
block = tests[0].yaml_block
assert [s["call"] for s in block["skipped"]] == ["Inner.go"] and "registered from Lua" in block["skipped"][0]["reason"], block
assert block["nested_calls_not_replayed"] == 1, block
assert "# 5 calls replayed: 4 same, 0 differ, 1 skipped" in open(sys.argv[1]).read()
