# jobs2.py TAP TRACE STATUS: under --jobs 2 the report and the trace keep the scenarios' order.
import json, sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [True] * 4 and open(sys.argv[3]).read().strip() == "0", [(t.ok, t.description, t.yaml_block) for t in tests]
assert [t.description.split(": ", 1)[1] for t in tests] == ["meets the second", "meets the first", "calls late", "calls at once"]
calls = [r for r in map(json.loads, open(sys.argv[2])) if "call" in r]  # the mediator's records, not the steps
assert [c["scenario"] for c in calls] == ["calls late", "calls at once"], calls
assert calls[0]["time"] > calls[1]["time"], calls  # made later, written first: the scenarios' order
