# escapes.py TAP XML: escapes.lua's attempts are refused or bounded; NUL and C1 bytes escaped.
import sys
from tap.parser import Parser
from junitparser import JUnitXml
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
oks = [t.ok for t in tests]
assert oks == [True, True, False, True, True, True, False, False, False, True], [(t.ok, t.description, t.yaml_block) for t in tests]
assert tests[2].yaml_block["message"] == "expected {a = 2}, got {a = 1} (at a): 1 differs from 2", tests[2].yaml_block
later = tests[6].yaml_block
assert later["step"] == "later", later
assert [(s["name"], s["status"]) for s in later["steps"]] == [("inner", "failed"), ("later", "failed")], later
c1 = tests[7].yaml_block
assert c1 is not None and "a\x85b\x90c" in c1["message"], c1  # C1 controls escaped, so the YAML parses
assert c1["output"] == "before\\0after", repr(c1["output"])
assert tests[8].yaml_block["message"].endswith("left\\0right"), tests[8].yaml_block  # not cut at the NUL
assert tests[8].yaml_block["traceback"].startswith("stack traceback:"), tests[8].yaml_block  # the message is not repeated
cases = list(list(JUnitXml.fromfile(sys.argv[2]))[0])
assert len(cases) == 10
assert cases[8].result[0].message.endswith("left\\0right"), cases[8].result[0].message
