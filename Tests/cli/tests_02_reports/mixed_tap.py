# mixed_tap.py TAP: every scenario of mixed.lua reported, in order, with its YAML block.
import sys
from tap.parser import Parser
lines = list(Parser().parse_file(sys.argv[1]))
tests = [l for l in lines if l.category == "test"]
assert [l.ok for l in tests] == [True, False, False, False, True], [l.ok for l in tests]
assert lines[0].category == "version" and lines[0].version == 14, lines[0]
assert lines[1].category == "plan" and lines[1].expected_tests == 5
deep = tests[1].yaml_block
assert deep["outcome"] == "failed" and deep["step"] == "compare", deep
assert deep["message"] == 'expected {user = {langs = {"lua", "swift"}, name = "Ada"}}, got {user = {langs = ' \
    '{"lua", "c"}, name = "Ada"}} (at user.langs[2]): "c" differs from "swift"', deep["message"]
assert deep["at"].endswith("mixed.lua:9"), deep["at"]
err = tests[2].yaml_block
assert err["outcome"] == "error" and "attempt to index a nil value" in err["message"], err
assert "stack traceback" in err["traceback"] and "scenario API" not in err["traceback"], err["traceback"]
assert tests[3].yaml_block["message"] == "expected 3.0, got 3", tests[3].yaml_block
summary = [l for l in lines if l.category == "diagnostic"][-1].text
assert summary.startswith("# 2 passed, 3 failed"), summary
