# escapees.py SWITCHBOARD SCRIPT PIDS: processes a scenario started in a process group or a session
# of their own, or orphaned, end when the scenario ends, and when a signal stops the run.
import os, signal, subprocess, sys, time
sb, script, pids = sys.argv[1:4]
env = dict(os.environ, SB_PIDS=pids)

def alive(pid):
    try:
        state = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"

def check_ended(tag):
    found = {kind: int(open(os.path.join(pids, "%s.%s" % (tag, kind))).read()) for kind in ("pgrp", "sid", "orphan")}
    for _ in range(50):
        if not any(alive(p) for p in found.values()): return
        time.sleep(0.1)
    left = {k: p for k, p in found.items() if alive(p)}
    for p in left.values(): os.kill(p, signal.SIGKILL)
    raise AssertionError("%s: processes left running: %s" % (tag, left))

run = subprocess.run([sb, "run", "--allow-os", "--filter", "and ends", script], capture_output=True, env=env, timeout=60)
assert run.returncode == 0, run.stdout.decode() + run.stderr.decode()
check_ended("ended")

run = subprocess.Popen([sb, "run", "--allow-os", "--filter", "and waits", script], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=env)
for _ in range(300):
    if all(os.path.exists(os.path.join(pids, "waiting." + k)) for k in ("pgrp", "sid", "orphan")): break
    time.sleep(0.1)
time.sleep(1)  # each has left its group or session, and exec'd (the scenario waits for that)
run.send_signal(signal.SIGTERM)
run.wait(timeout=60)
check_ended("waiting")
