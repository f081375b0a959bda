# processes.py TAP XML: processes.lua and isolation.lua, each scenario in a process of its own.
import re, sys
from tap.parser import Parser
from junitparser import JUnitXml, Error
lines = list(Parser().parse_file(sys.argv[1]))
tests = [l for l in lines if l.category == "test"]
assert [t.ok for t in tests] == [True, True, False, False, True, True, True, True], [(t.ok, t.description, t.yaml_block) for t in tests]
crash = tests[2].yaml_block
assert crash["outcome"] == "error" and "signal 6" in crash["message"] and "crashed" in crash["message"], crash
exited = tests[3].yaml_block
assert exited["message"] == "the scenario's process exited with status 7 before it reported", exited
pids = re.findall(r"^# pid (\d+)$", open(sys.argv[1]).read(), re.M)
assert len(pids) == 2 and pids[0] != pids[1], pids
cases = list(list(JUnitXml.fromfile(sys.argv[2]))[0])
assert isinstance(cases[2].result[0], Error) and "signal 6" in cases[2].result[0].message, cases[2].result
