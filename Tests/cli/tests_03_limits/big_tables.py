# big_tables.py TAP: failures on shared and huge tables are reported, cut short.
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
for t in tests[:2]:
    b = t.yaml_block
    assert b["outcome"] == "failed" and b["message"].startswith("the tables differ at ") and len(b["message"]) < 20000, len(b["message"])
# past 200,000 entries the walk stops and says so
assert tests[1].yaml_block["message"].startswith("the tables differ at 200000 or more keys (- expected, + got):\n+ [1] = 1\n"), \
    tests[1].yaml_block["message"][:200]
assert "\n... and at least 199990 more\nexpected {}\n     got {1, 2, 3" in tests[1].yaml_block["message"], tests[1].yaml_block["message"][:400]
assert tests[2].yaml_block["message"] == "custom message", tests[2].yaml_block
