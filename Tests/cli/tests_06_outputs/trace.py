# trace.py TRACE: trace.lua's calls, recorded.
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1])]
assert all(r["trace"] == 2 for r in lines), lines  # the format
records = [r for r in lines if "call" in r]  # what the mediator saw; the others are the script's steps
calls = [(r["call"], r.get("url") or r.get("target")) for r in records]
assert calls == [("perform", "A"), ("perform", "Nobody"), ("open", "app://A/cell?identifier=Traced"),
                 ("open", "app://A/nativeNoImage"), ("perform", "A"), ("perform", "Inner")], calls
for r in records:
    assert r["scenario"] == "traced calls" and r["time"].endswith("Z") and isinstance(r["duration_us"], int), r
    assert r["script"] == "Tests/cli/scenarios/trace.lua", r
    assert list(r)[:6] == ["trace", "time", "script", "scenario", "depth", "call"], list(r)
assert [r["depth"] for r in records] == [1, 1, 1, 1, 2, 1], [r["depth"] for r in records]  # Inner.go made A's call
first, missing, url_ok, refused, inner, outer = records
assert first["action"] == "nativeFetchDetailViewController"
assert first["params"] == {"key": "k1", "n": 3, "x": 2.5}, first["params"]
assert first["result"] == {"page": "DemoModuleADetailViewController", "title": "k1"}, first
assert missing["code"] == "ENOTARGET" and "Nobody" in missing["error"] and "result" not in missing, missing
assert missing["params"] == {"bytes": {"$bytes": "fffe"}}, missing["params"]
assert url_ok["result"]["identifier"] == "Traced", url_ok
assert (url_ok["target"], url_ok["action"]) == ("A", "cell"), url_ok  # where the URL went
assert not any("answered_by" in r for r in records), records  # each call answered by the action it named
assert refused["code"] == "EREJECTED", refused
assert outer["params"] == {"nan": "NaN"} and outer["result"]["image"] == "placeholder.png", outer
# The steps, for replay: the script's calls as it made them, the target it
# registered, the build calling that target's action, and the call the action made.
steps = sorted((r for r in lines if "op" in r), key=lambda r: r["seq"])
assert [(r["seq"], r["op"], r.get("in")) for r in steps] == [
    (1, "perform", None), (2, "perform", None), (3, "open", None), (4, "open", None), (5, "target", None),
    (6, "perform", None), (7, "invoked", None), (8, "perform", 7)], steps
assert steps[0]["args"] == ["A", "nativeFetchDetailViewController", {"key": "k1", "n": 3, "x": 2.5}], steps[0]
assert steps[1]["returns"][0] is None and steps[1]["returns"][2] == "ENOTARGET", steps[1]
assert steps[4]["args"] == ["Inner", {"go": {"$fn": 1}}] and steps[6]["fn"] == 1, steps
assert steps[5]["args"] == ["Inner", "go", {"nan": "NaN"}] and steps[5]["form"] == "coroutine", steps[5]
assert steps[7]["args"] == ["A", "nativeNoImage"] and "form" not in steps[7], steps[7]  # made inside the action
