# coverage.py TAP JSON XML STATUS: the examples' coverage in TAP comments, JSON and JUnit.
import json, re, sys
from junitparser import JUnitXml
tap = open(sys.argv[1]).read()
assert open(sys.argv[4]).read().strip() == "0", tap
data = json.load(open(sys.argv[2]))
status = {a["target"] + "." + a["action"]: a["status"] for a in data["actions"]}
# the examples never call A.configCell; Catalog's notFound answers their calls of actions it lacks
assert status["A.configCell"] == "not called" and status["Catalog.notFound"] == "only through a fallback", status
assert status["A.nativeNoImage"] == "called", status
counts = [sum(1 for s in status.values() if s == k) for k in ("called", "only through a fallback", "not called")]
assert counts == [data["called"], data["fallback_only"], data["not_called"]], (counts, data)
summary = "# coverage: %d of %d actions of the plugins and targets loaded were called, %d only through a fallback, %d never" % (
    counts[0], len(status), counts[1], counts[2])
assert summary in tap, tap
listed = dict((m.group(2), m.group(1)) for m in re.finditer(r"^#   (not called|only through a fallback): (\S+)$", tap, re.M))
assert listed == {k: v for k, v in status.items() if v != "called"}, (listed, status)
suites = list(JUnitXml.fromfile(sys.argv[3]))
cov = [s for s in suites if s.name == "switchboard coverage"][0]
assert {p.name: p.value for p in cov.properties()} == status
assert sum(s.tests for s in suites) == 17, [s.tests for s in suites]
