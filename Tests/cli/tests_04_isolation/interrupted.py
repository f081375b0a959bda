# interrupted.py SWITCHBOARD SCENARIOS WORK: SIGINT, SIGTERM and a closed TAP pipe stop a run;
# its reports say what finished, mark the rest interrupted, and are put in place whole.
import os, signal, subprocess, sys, time
import xml.etree.ElementTree as ET
from junitparser import JUnitXml
sb, scenarios, work = sys.argv[1:4]

def wait_for(path):
    for _ in range(600):
        if os.path.exists(path): return
        time.sleep(0.05)
    raise AssertionError("never ready: " + path)

def start(name, script, *options, stdout=subprocess.PIPE):
    ready = os.path.join(work, name + ".ready")
    env = dict(os.environ, SB_READY=ready)
    args = [sb, "run", "--allow-os", "--timeout", "120", "--jobs", "1", "--junit", os.path.join(work, name + ".xml"),
            "--trace", os.path.join(work, name + ".jsonl"), *options, os.path.join(scenarios, script)]
    # As from a terminal: a run started in the background of a script (SIGINT
    # ignored) or under nohup (SIGHUP) keeps ignoring those, by design.
    return subprocess.Popen(args, stdout=stdout, stderr=subprocess.PIPE, env=env, preexec_fn=default_signals), ready

def default_signals():
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)

def cases(name):
    return [(c.name, c.result[0].type if c.result else "passed", c.result[0].message if c.result else None)
            for suite in JUnitXml.fromfile(os.path.join(work, name + ".xml")) for c in suite]

def no_leftovers():
    left = [f for f in os.listdir(work) if f.startswith(".")]
    assert not left, left

for sig in (signal.SIGINT, signal.SIGTERM):
    name = signal.Signals(sig).name
    run, ready = start(name, "interrupted.lua")
    wait_for(ready)
    # While it runs, the report in place says the run has not finished; the trace is empty.
    early = cases(name)
    assert early == [("the run did not finish", "incomplete", early[0][2])], early
    assert os.path.getsize(os.path.join(work, name + ".jsonl")) == 0
    started = time.monotonic()
    run.send_signal(sig)
    out, err = run.communicate(timeout=60)
    assert time.monotonic() - started < 30, "it waited for the scenario's timeout"
    assert run.returncode == -sig, (name, run.returncode, err)  # it dies by the signal, as it would have
    tap = out.decode().splitlines()
    assert [l for l in tap if l.startswith(("ok", "not ok"))] == \
        ["ok %d - %s/interrupted.lua: passes %d" % (i, scenarios, i) for i in range(1, 7)] + \
        ["not ok 7 - %s/interrupted.lua: waits for the signal" % scenarios], tap
    assert "  outcome: \"interrupted\"" in tap, tap
    bail = "Bail out! Interrupted by signal %d (%s): 7 of 10 scenarios reported, 3 not run" % (sig, name)
    assert tap[-1] == bail, tap[-1]
    assert ("switchboard: " + bail[len("Bail out! "):]).encode() in err, err
    got = cases(name)
    assert [c[:2] for c in got] == [("passes %d" % i, "passed") for i in range(1, 7)] + \
        [("waits for the signal", "interrupted")] + [("never runs %d" % i, "interrupted") for i in (8, 9, 10)], got
    assert got[6][2].startswith("interrupted by signal %d (" % sig) and "while it ran" in got[6][2], got[6]
    assert got[7][2] == "not run: the run was stopped by signal %d (%s)" % (sig, name), got[7]
    root = ET.parse(os.path.join(work, name + ".xml")).getroot()
    assert (root.get("tests"), root.get("errors")) == ("10", "4"), root.attrib
    trace = [l for l in open(os.path.join(work, name + ".jsonl")).read().splitlines() if '"call":' in l]  # not the steps
    assert len(trace) == 7, trace  # each scenario that ran made its call, the seventh too
    no_leftovers()

# Stopped while the scripts are listed (Lua in the runner's own process).
run, ready = start("listing", "interrupted_top.lua")
wait_for(ready)
run.send_signal(signal.SIGTERM)
out, err = run.communicate(timeout=60)
assert run.returncode == -signal.SIGTERM, (run.returncode, err)
assert out.decode().splitlines() == ["TAP version 14", "Bail out! Interrupted by signal 15 (SIGTERM) while the scripts "
                                     "were listed: no scenario ran"], out
assert [c[:2] for c in cases("listing")] == [("(its scenarios)", "interrupted")], cases("listing")
no_leftovers()

# The TAP stream's reader goes away after the first scenario: a closed pipe's SIGPIPE stops the run.
run, ready = start("pipe", "many.lua")
for _ in range(3): run.stdout.readline()  # the version, the plan, ok 1
run.stdout.close()
out, err = run.communicate(timeout=60)
assert run.returncode == -signal.SIGPIPE, (run.returncode, err)
got = cases("pipe")
kinds = [c[1] for c in got]
assert len(got) == 500 and kinds[0] == "passed" and "interrupted" in kinds, got[:5]
assert kinds == sorted(kinds, key=lambda k: k != "passed"), kinds  # what finished, then what did not run
no_leftovers()
