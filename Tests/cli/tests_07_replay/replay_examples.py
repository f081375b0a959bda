# replay_examples.py TAP STATUS TRACE XML: replaying every example's trace on the same build: nothing
# differs and nothing is skipped (the trace records options, and the targets and functions of the script's).
import json, sys
from tap.parser import Parser
from junitparser import JUnitXml
lines = list(Parser().parse_file(sys.argv[1]))
tests = [l for l in lines if l.category == "test"]
records = [json.loads(l) for l in open(sys.argv[3])]
assert all(r["trace"] == 2 for r in records), records[0]
groups = list(dict.fromkeys((r["script"], r["scenario"]) for r in records))
names = ["%s: %s" % (script, scenario if scenario is not None else "(the script's top level)") for script, scenario in groups]
assert [t.description.removeprefix("- ") for t in tests] == names, [t.description for t in tests]
assert open(sys.argv[2]).read().strip() == "0", open(sys.argv[1]).read()
assert all(t.ok and t.yaml_block is None for t in tests), [(t.description, t.yaml_block) for t in tests if t.yaml_block]
# Every step is compared: the script's calls, what it set up, and each call of a function of its own.
steps = [r for r in records if "op" in r]
assert {"perform", "open", "target", "evict", "rules", "intercept", "unintercept", "url_pattern", "invoked"} \
    <= {r["op"] for r in steps}, {r["op"] for r in steps}
summary = [l.text for l in lines if l.category == "diagnostic"][-1]
assert summary == "# %d calls replayed: %d same, 0 differ, 0 skipped (failures compare by code, not message)" \
    % (len(steps), len(steps)), (summary, len(steps))
cases = [c for suite in JUnitXml.fromfile(sys.argv[4]) for c in suite]
assert len(cases) == len(groups) and all(c.is_passed for c in cases), cases
