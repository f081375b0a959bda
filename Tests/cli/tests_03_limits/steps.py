# steps.py TAP: step names are at most 1024 bytes; a report shows 1,000 steps at most.
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert "step(name, fn): name must be at most 1024 bytes (this one has 1025)" in tests[0].yaml_block["message"], tests[0].yaml_block
steps = tests[1].yaml_block["steps"]
assert len(steps) == 1001 and steps[500] == {"name": "(2000 steps not shown)", "status": "not shown"}, (len(steps), steps[500])
assert steps[0]["name"] == "step 1" and steps[-1]["name"] == "step 3000", (steps[0], steps[-1])
