# replay_trace.py TAP STATUS: trace.lua's trace replays the same, every step: the target the
# script registered (Inner) stands in for itself, and the call its action made is made again.
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert open(sys.argv[2]).read().strip() == "0" and len(tests) == 1 and tests[0].ok, open(sys.argv[1]).read()
assert tests[0].yaml_block is None, tests[0].yaml_block  # nothing skipped
assert "# 8 calls replayed: 8 same, 0 differ, 0 skipped" in open(sys.argv[1]).read()
