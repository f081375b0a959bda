# trace.py TRACE: trace.lua's calls, recorded.
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
calls = [(r["call"], r.get("url") or r.get("target")) for r in records]
assert calls == [("perform", "A"), ("perform", "Nobody"), ("open", "app://A/cell?identifier=Traced"),
                 ("open", "app://A/nativeNoImage"), ("perform", "A"), ("perform", "Inner")], calls
for r in records:
    assert r["scenario"] == "traced calls" and r["time"].endswith("Z") and isinstance(r["duration_us"], int), r
    assert r["script"] == "Tests/cli/scenarios/trace.lua", r
    assert list(r)[:5] == ["time", "script", "scenario", "depth", "call"], list(r)
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
