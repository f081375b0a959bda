# replay_edited.py TAP STATUS TRACE: the edited steps differ, and the YAML says how.
import json, sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert open(sys.argv[2]).read().strip() == "1" and len(tests) == 1 and not tests[0].ok, open(sys.argv[1]).read()
records = [json.loads(l) for l in open(sys.argv[3])]
line = {r["op"] if r["op"] != "perform" else r["args"][1]: n + 1 for n, r in enumerate(records) if "op" in r
        and r["op"] in ("perform", "invoked", "open") and (r["op"] != "open" or "nativeNoImage" in r["args"][0])}
differs = tests[0].yaml_block["differs"]
assert [(d["call"], d["line"]) for d in differs] == [
    ("A.nativeFetchDetailViewController", line["nativeFetchDetailViewController"]),
    ("open app://A/nativeNoImage", line["open"]),
    ("the script's Inner.go", line["invoked"])], differs
assert json.loads(differs[0]["recorded"])["result"]["title"] == "not k1", differs[0]
assert json.loads(differs[0]["now"])["result"]["title"] == "k1", differs[0]
assert json.loads(differs[1]["now"]) == {"code": "EREJECTED"}, differs[1]  # the URL policy still refuses it
assert json.loads(differs[2]["recorded"]) == {"args": [{"nan": 1}]}, differs[2]  # what the build gave Inner.go
assert json.loads(differs[2]["now"]) == {"args": [{"nan": "NaN"}]}, differs[2]
assert tests[0].yaml_block["message"] == "3 calls differ of 8 replayed", tests[0].yaml_block
