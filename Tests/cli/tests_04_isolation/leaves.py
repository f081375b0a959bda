# leaves.py SWITCHBOARD SCRIPT PIDS: SIGTERM to the runner ends the processes its scenarios started.
import os, signal, subprocess, sys, time
env = dict(os.environ, SB_PIDS=sys.argv[3])
run = subprocess.Popen([sys.argv[1], "run", "--jobs", "2", "--allow-os", sys.argv[2]], stdout=subprocess.DEVNULL, env=env)
for _ in range(100):
    if all(os.path.exists(os.path.join(sys.argv[3], str(i))) for i in (1, 2)): break
    time.sleep(0.1)
time.sleep(0.3)
pids = [int(open(os.path.join(sys.argv[3], str(i))).read()) for i in (1, 2)]
run.send_signal(signal.SIGTERM)
run.wait(timeout=30)
def alive(pid):
    try:
        state = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"
for _ in range(50):
    if not any(alive(p) for p in pids): break
    time.sleep(0.1)
else:
    for p in pids:
        if alive(p): os.kill(p, signal.SIGKILL)
    raise AssertionError("processes left running: %s" % pids)
