# replay_examples.py TAP STATUS TRACE XML: replaying every example's trace on the same build.
import json, sys
from tap.parser import Parser
from junitparser import JUnitXml
lines = list(Parser().parse_file(sys.argv[1]))
tests = [l for l in lines if l.category == "test"]
records = [json.loads(l) for l in open(sys.argv[3])]
groups = list(dict.fromkeys((r["script"], r["scenario"]) for r in records))
names = ["%s: %s" % (script, scenario if scenario is not None else "(the script's top level)") for script, scenario in groups]
assert [t.description.removeprefix("- ") for t in tests] == names, [t.description for t in tests]
assert open(sys.argv[2]).read().strip() == "1", open(sys.argv[1]).read()
# A route pattern the scenario set, and the cache call option (not in a trace), make these two differ.
failing = {t.description.split(": ", 1)[1]: t.yaml_block for t in tests if not t.ok}
assert sorted(failing) == ["a cached target keeps its state until it is released",
                           "a route pattern sends a URL to a Lua target"], failing
assert [d["call"] for d in failing["a cached target keeps its state until it is released"]["differs"]] == ["A.cell", "A.cell"]
skipped = [s for t in tests if t.yaml_block for s in t.yaml_block.get("skipped", [])]
assert {s["call"] for s in skipped} >= {"A.showAlert", "Drafts.discard", "PayFallback.charge"}, skipped
assert all("<userdata>" in s["reason"] for s in skipped if s["call"] == "A.showAlert"), skipped
summary = [l.text for l in lines if l.category == "diagnostic"][-1]
depth1 = sum(1 for r in records if r["depth"] == 1)
assert "%d calls replayed: " % depth1 in summary and "(failures compare by code, not message)" in summary, summary
cases = [c for suite in JUnitXml.fromfile(sys.argv[4]) for c in suite]
assert len(cases) == len(groups) and sum(1 for c in cases if not c.is_passed) == 2, cases
