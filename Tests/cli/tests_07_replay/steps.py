# steps.py MODE ...: a trace of replay_options.lua and replay_own_targets.lua (test_06_steps.sh).
#   same RECORD_STATUS TRACE TAP STATUS: the steps hold the options and the script's functions;
#       replayed on the same build, all are the same, none skipped
#   no_options TAP STATUS: replayed without the calls' options, those the options decided differ
#   changed TAP STATUS TRACE: replayed on a build whose Price target changed, the changes differ
import json, sys
from tap.parser import Parser

def report(tap, status):
    lines = list(Parser().parse_file(tap))
    tests = {t.description.split(": ", 1)[1]: t for t in lines if t.category == "test"}
    summary = [l.text for l in lines if l.category == "diagnostic"][-1]
    return tests, summary, open(status).read().strip()

def differing(test):
    return [(d["call"], json.loads(d["recorded"]), json.loads(d["now"])) for d in test.yaml_block["differs"]]

mode = sys.argv[1]
if mode == "same":
    assert open(sys.argv[2]).read().strip() == "0"
    records = [json.loads(l) for l in open(sys.argv[3])]
    steps = {}
    for r in records:
        if "op" in r: steps.setdefault(r["scenario"], []).append(r)
    def options(scenario):
        return [r["args"][3] for r in steps[scenario] if r["op"] == "perform" and len(r["args"]) > 3]
    assert options("a timeout") == [{"timeout": 0.05}], steps["a timeout"]
    assert options("a cached instance, evicted") == [{"cache": True}] * 3, steps["a cached instance, evicted"]
    assert options("no fallback") == [{"fallback": False}], steps["no fallback"]
    assert options("tags an interceptor reads, and bypass") == [{"tags": ["refuse"]}, {"tags": ["refuse"], "bypass": True}]
    assert options("a cancelled token") == [{"cancel": {"$cancel": True}}], steps["a cancelled token"]
    async_step = [r for r in steps["an asynchronous call with a function for its answer"] if r["op"] == "perform_async"][0]
    assert async_step["args"][3] == {"$fn": 1}, async_step
    # The calls the scenarios made themselves are depth 1, also those that suspended them.
    calls = [r for r in records if "call" in r and r["scenario"] in ("a timeout", "an asynchronous call with a function for its answer")]
    assert calls and all(r["depth"] == 1 for r in calls), [(r["scenario"], r["depth"]) for r in calls]
    # The build called the script's functions: Tax.rate (from the top level), NoTargetAction, Profile.show,
    # the alert's callback, Dialog.ask (answering later, after the call it made inside).
    invoked = [r for r in records if r.get("op") == "invoked"]
    assert {r["scenario"] for r in invoked} >= {"a build target calls the script's target",
                                                 "the fallback, a URL pattern and a callback are the script's",
                                                 "an action of the script's answers later"}, invoked
    replied = [r for r in records if r.get("op") == "replied"]
    assert [(r["arg"], r["args"][0], r["returns"]) for r in replied] == [(2, "answer", [True])], replied
    later = [r for r in invoked if r.get("later")]
    assert len(later) == 1 and later[0]["returns"] == [{"answer": "Save?"}], later
    inside = [r for r in records if r.get("in") == later[0]["seq"] and r["scenario"] == later[0]["scenario"]]
    assert [r["args"][:2] for r in inside] == [["Net", "download"]], inside
    tests, summary, status = report(sys.argv[4], sys.argv[5])
    n = len({(r["script"], r["scenario"], r["seq"]) for r in records if "op" in r})  # the top level's, once
    assert status == "0" and all(t.ok and t.yaml_block is None for t in tests.values()), open(sys.argv[4]).read()
    assert summary == "# %d calls replayed: %d same, 0 differ, 0 skipped (failures compare by code, not message)" % (n, n), \
        (summary, n)
elif mode == "no_options":
    tests, summary, status = report(sys.argv[2], sys.argv[3])
    failed = sorted(name for name, t in tests.items() if not t.ok)
    assert status == "1" and failed == ["a cached instance, evicted", "a cancelled token", "a timeout",
                                        "no fallback", "tags an interceptor reads, and bypass"], failed
    timeout = differing(tests["a timeout"])
    assert timeout[0][1] == {"code": "ETIMEOUT"} and timeout[0][2]["result"]["url"] == "slow://", timeout
    # Without fallback = false the build calls the script's NoTargetAction once more than recorded.
    fallback = differing(tests["no fallback"])
    assert [(call, recorded) for call, recorded, _ in fallback] == [
        ("the script's NoTargetAction.response", {"called": False}), ("Missing.x", {"code": "ENOTARGET"})], fallback
    assert fallback[0][2]["called"] is True and fallback[0][2]["args"][0]["target"] == "Missing", fallback
else:
    tests, summary, status = report(sys.argv[2], sys.argv[3])
    failed = [name for name, t in tests.items() if not t.ok]
    assert status == "1" and failed == ["a build target calls the script's target"], (failed, open(sys.argv[2]).read())
    got = [(d["call"], d["recorded"], d["now"]) for d in tests["a build target calls the script's target"].yaml_block["differs"]]
    assert got == [
        ("the script's Tax.rate", '{"args":[{"country":"FR"}]}', '{"args":[{"country":"fr"}]}'),
        ("Price.quote", '{"result":{"total":120}}', '{"result":{"total":120.0}}'),
        ("the script's Tax.rate", '{"args":[{"country":"DE"}]}', '{"args":[{"country":"de"}]}'),
        ("Price.quote", '{"result":{"total":55}}', '{"result":{"total":55.000000000000007}}')], got
    assert ", 4 differ, 0 skipped" in summary, summary
