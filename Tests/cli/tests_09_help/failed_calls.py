# failed_calls.py TAP: failed calls in matchers; an error's traceback is the script's alone.
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [True, True, True, False], [(t.ok, t.description, t.yaml_block) for t in tests]
err = tests[3].yaml_block
assert err["outcome"] == "error" and "attempt to index a nil value" in err["message"], err
trace = err["traceback"]
assert trace.startswith("stack traceback:"), trace      # the message is not repeated
assert err["message"] not in trace, trace
assert "scenario API" not in trace and "in function 'pcall'" not in trace, trace
frames = trace.splitlines()[1:]
assert len(frames) == 3 and all("failed_calls.lua:" in f for f in frames), trace  # inner, outer, the scenario
assert frames[0].lstrip().startswith("Tests/cli/scenarios/failed_calls.lua:49:"), trace  # where it was raised
