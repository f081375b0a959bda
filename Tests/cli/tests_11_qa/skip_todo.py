# skip_todo.py TAP XML: skip_todo.lua's skips, todos and a scenario that expects nothing, in TAP and JUnit.
import sys
from tap.parser import Parser
from junitparser import JUnitXml, Skipped, Failure
lines = list(Parser().parse_file(sys.argv[1]))
tests = [l for l in lines if l.category == "test"]
assert [t.ok for t in tests] == [True, True, False, True, True, True], [(t.ok, t.description) for t in tests]
assert tests[0].skip and tests[0].directive.reason == "the server is down", tests[0].directive.text
assert tests[1].skip and not tests[1].todo, tests[1].directive.text
# the reason's own '#' is escaped: no second directive is forged
assert 'no <db> & no "net" \\# here' in tests[1].directive.reason, tests[1].directive.reason
assert tests[2].todo and tests[2].directive.reason == "not built yet", tests[2].directive.text
assert tests[2].yaml_block["severity"] == "todo", tests[2].yaml_block
assert tests[3].todo, tests[3].directive.text  # a todo that passed: ok # TODO (an unexpected pass)
text = open(sys.argv[1]).read()
assert "# todo: it passed: remove its todo" in text, text
assert "# warning: it made no expectation" in text, text
summary = [l for l in lines if l.category == "diagnostic"][-1].text
assert summary.startswith("# 3 passed, 0 failed, 2 skipped, 1 todo"), summary
cases = list(list(JUnitXml.fromfile(sys.argv[2]))[0])
kinds = [type(c.result[0]).__name__ if c.result else "passed" for c in cases]
assert kinds == ["Skipped", "Skipped", "Skipped", "passed", "passed", "passed"], kinds
assert cases[0].result[0].message == "the server is down", cases[0].result[0].message
assert cases[2].result[0].type == "todo" and "it failed, as expected" in cases[2].result[0].text, cases[2].result[0].text
assert "it passed: remove its todo" in cases[3].system_out, cases[3].system_out
suite = list(JUnitXml.fromfile(sys.argv[2]))[0]
assert suite.skipped == 3 and suite.failures == 0 and suite.errors == 0, (suite.skipped, suite.failures, suite.errors)
