# mixed_junit.py XML: junitparser reads mixed.lua's JUnit report (1 failure vs 2 errors, output).
import sys
from junitparser import JUnitXml, Failure, Error
xml = JUnitXml.fromfile(sys.argv[1])
suites = list(xml)
assert len(suites) == 1 and suites[0].tests == 5, [(s.name, s.tests) for s in suites]
cases = list(suites[0])
kinds = [type(c.result[0]).__name__ if c.result else "passed" for c in cases]
assert kinds == ["passed", "Failure", "Error", "Failure", "passed"], kinds
assert suites[0].failures == 2 and suites[0].errors == 1, (suites[0].failures, suites[0].errors)
assert cases[0].system_out == "visible\t42\nwritten\n", repr(cases[0].system_out)
assert "differs" in cases[1].result[0].message
