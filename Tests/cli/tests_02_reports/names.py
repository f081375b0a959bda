# names.py TAP XML: names with #, \, newlines and XML characters survive TAP and JUnit.
import sys
from tap.parser import Parser
from junitparser import JUnitXml
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [False, False, True], tests
cases = list(list(JUnitXml.fromfile(sys.argv[2]))[0])
assert cases[0].name == 'has # and \\ and <xml & "quotes">', cases[0].name
assert cases[0].system_out == "control \ufffd char and <tags> & ampersands\n", repr(cases[0].system_out)
assert cases[1].name == "fails \u0600# TODO a directive would hide the failure", repr(cases[1].name)
