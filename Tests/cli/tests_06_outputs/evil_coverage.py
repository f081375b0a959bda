# evil_coverage.py TAP JSON STATUS: hostile action names neither forge TAP lines nor each other's status.
import json, sys
tap = open(sys.argv[1], newline="").read()
assert open(sys.argv[3]).read().strip() == "0", tap
lines = tap.split("\n")
assert not any(l.startswith(("not ok 99", "Bail out!", "called")) for l in lines), tap
assert "\r" not in tap, repr(tap)
status = {a["action"]: a["status"] for a in json.load(open(sys.argv[2]))["actions"] if a["target"] == "Evil"}
assert status == {"plain": "not called", "tab\there": "called", "nl\nnot ok 99 - injected by an action name": "not called",
                  "x\ncalled\tEvil\tplain": "called", "never\nBail out! injected": "not called",
                  "caf\u00e9": "not called", "cafe\u0301": "called", "cr\r": "called"}, status
assert not any(a["target"] == "Fixture" for a in json.load(open(sys.argv[2]))["actions"])
