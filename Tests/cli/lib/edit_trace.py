# edit_trace.py TRACE OUT: trace.lua's trace with one result changed and a refused URL claimed to succeed.
import json, sys
out = []
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("target") == "A" and r["action"] == "nativeFetchDetailViewController":
        r["result"]["title"] = "not k1"
    if r.get("url") == "app://A/nativeNoImage":
        del r["code"], r["error"]
        r["result"] = {"image": "placeholder.png", "page": "NoImageViewController"}
    out.append(json.dumps(r))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
