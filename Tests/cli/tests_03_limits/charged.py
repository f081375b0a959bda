# charged.py TAP: what the library keeps for a scenario (charged.lua) counts against --max-memory.
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [False] * 6 + [True, False, True, True], [(t.ok, t.description, t.yaml_block) for t in tests]
for t in tests[:6] + tests[7:8]:
    assert t.yaml_block["outcome"] == "limit" and "--max-memory" in t.yaml_block["message"], t.yaml_block
