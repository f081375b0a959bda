# stuck.py TAP XML: a scenario stuck in C is a limit once its process is ended; the others run.
import sys
from tap.parser import Parser
from junitparser import JUnitXml
lines = list(Parser().parse_file(sys.argv[1]))
assert not [l for l in lines if l.category == "bail"], "Bail out!"
tests = [l for l in lines if l.category == "test"]
assert [t.ok for t in tests] == [False, True, True, True, True], [(t.ok, t.description) for t in tests]
y = tests[0].yaml_block
assert y["outcome"] == "limit" and "past the timeout of 1 s (--timeout)" in y["message"] \
    and "its process was ended" in y["message"], y
assert sum(s.tests for s in JUnitXml.fromfile(sys.argv[2])) == 5
