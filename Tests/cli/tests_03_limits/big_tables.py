# big_tables.py TAP: failures on shared and huge tables are reported, cut short.
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
for t in tests[:2]:
    b = t.yaml_block
    assert b["outcome"] == "failed" and b["message"].startswith("expected {}, got {") and len(b["message"]) < 20000, len(b["message"])
assert tests[2].yaml_block["message"] == "custom message", tests[2].yaml_block
