# replay_edited.py TAP STATUS: the edited records differ, and the YAML says how.
import json, sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert open(sys.argv[2]).read().strip() == "1" and len(tests) == 1 and not tests[0].ok, open(sys.argv[1]).read()
differs = tests[0].yaml_block["differs"]
assert [d["call"] for d in differs] == ["A.nativeFetchDetailViewController", "open app://A/nativeNoImage"], differs
assert [d["line"] for d in differs] == [1, 4], differs
assert json.loads(differs[0]["recorded"])["result"]["title"] == "not k1", differs[0]
assert json.loads(differs[0]["now"])["result"]["title"] == "k1", differs[0]
assert json.loads(differs[1]["now"]) == {"code": "EREJECTED"}, differs[1]  # the URL policy still refuses it
assert tests[0].yaml_block["message"] == "2 calls differ of 5 replayed", tests[0].yaml_block
