# edit_trace.py TRACE OUT: trace.lua's trace with one result changed, a refused URL claimed to
# succeed, and the params the build gave the script's own target changed: the steps a replay
# does again (the mediator's call records are left as they were).
import json, sys
out = []
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("op") == "perform" and r["args"][:2] == ["A", "nativeFetchDetailViewController"]:
        r["returns"][0]["title"] = "not k1"
    if r.get("op") == "open" and r["args"][0] == "app://A/nativeNoImage":
        r["returns"] = [{"image": "placeholder.png", "page": "NoImageViewController"}]
    if r.get("op") == "invoked":
        r["args"][0]["nan"] = 1
    out.append(json.dumps(r))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
