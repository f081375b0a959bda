# merged.py XML: the merged report of many.lua's shards holds its 200 cases once each, in one suite.
import sys
from junitparser import JUnitXml
suites = [s for s in JUnitXml.fromfile(sys.argv[1])]
assert len(suites) == 1 and suites[0].tests == 200, [(s.name, s.tests) for s in suites]
names = sorted(c.name for c in suites[0])
assert names == sorted("scenario %d" % i for i in range(1, 201)), names[:5]
assert suites[0].failures == 0 and suites[0].errors == 0
