# forged.py TAP STATUS: native* URLs a trace claims succeeded are refused again.
import json, sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert open(sys.argv[2]).read().strip() == "1" and not tests[0].ok, open(sys.argv[1]).read()
now = [json.loads(d["now"]) for d in tests[0].yaml_block["differs"]]
assert [n.get("code") for n in now] == ["EREJECTED", "EREJECTED"], now
