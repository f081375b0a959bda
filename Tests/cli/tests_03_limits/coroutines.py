# coroutines.py TAP: work spread over coroutines meets the one instruction budget.
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [False, False, True, True], [(t.ok, t.description, t.yaml_block) for t in tests]
for t in tests[:2]:
    assert t.yaml_block["outcome"] == "limit" and "--max-instructions" in t.yaml_block["message"], t.yaml_block
