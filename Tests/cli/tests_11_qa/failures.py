# failures.py TAP XML: failures.lua's table diff, helper traceback, kept call reason; -v shows the top level's print.
import sys
from tap.parser import Parser
from junitparser import JUnitXml
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [False, False, False], [t.ok for t in tests]
diff = tests[0].yaml_block["message"].split("\n")
assert diff[0] == "the tables differ at 3 keys (- expected, + got):", diff
# to_equal's argument is the expected side: extra is missing from what it got
assert diff[1:6] == ["- extra = true", "- id = 2", "+ id = 1", '- langs[2] = "c"', '+ langs[2] = "swift"'], diff
helper = tests[1].yaml_block
assert helper["at"].endswith("qa_helper.lua:4"), helper
assert "failures.lua:9" in helper["traceback"], helper["traceback"]  # the scenario's calling line
kept = tests[2].yaml_block["message"]
assert kept == 'expected a value, got nil (the last call, Nobody.x, failed: no target named "Nobody" ENOTARGET)', kept
text = open(sys.argv[1]).read()
assert "\n# - id = 2\n# + id = 1\n" in text, text  # the diff, as printed, after the YAML block
assert "top level says hello" in text, text  # -v
cases = list(list(JUnitXml.fromfile(sys.argv[2]))[0])
failure = cases[0].result[0]
assert failure.message == "the tables differ at 3 keys (- expected, + got):", failure.message
assert '- langs[2] = "c"\n+ langs[2] = "swift"' in failure.text, failure.text
