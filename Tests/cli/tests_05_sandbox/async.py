# async.py TAP STATUS: async.lua's waits, in steps, pcall and xpcall, and the timeout.
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert open(sys.argv[2]).read().strip() == "1"
assert [t.ok for t in tests] == [False, False, False, True, False, True], [(t.ok, t.description, t.yaml_block) for t in tests]
never, yielded, raised, _, failed, _ = [t.yaml_block for t in tests]
assert never["outcome"] == "limit" and never["message"] == \
    "the timeout of 2 s was reached (--timeout) while the scenario waited for an asynchronous call", never
assert yielded["outcome"] == "error" and "yielded outside a call to an asynchronous action" in yielded["message"], yielded
assert raised["outcome"] == "error" and raised["at"].endswith("async.lua:26"), raised
assert "scenario API" not in raised["traceback"], raised["traceback"]
assert failed["outcome"] == "failed" and failed["at"].endswith("async.lua:42"), failed
