# flood.py SWITCHBOARD SCRIPT TRACE FLAG: every line written, in order, the runner under 64 MiB.
import json, os, subprocess, sys, time
env = dict(os.environ, SB_FLOODED=sys.argv[4])
run = subprocess.Popen([sys.argv[1], "run", "--jobs", "2", "--allow-os", "--trace", sys.argv[3], sys.argv[2]],
                       stdout=subprocess.PIPE, env=env)
peak = 0
while run.poll() is None:
    try:
        for line in open("/proc/%d/status" % run.pid):
            if line.startswith("VmHWM:"): peak = max(peak, int(line.split()[1]))
    except (FileNotFoundError, ProcessLookupError):
        pass
    time.sleep(0.05)
tap = run.stdout.read().decode()
assert run.returncode == 0 and "# 2 passed, 0 failed" in tap, tap
count = 0
with open(sys.argv[3]) as trace:
    for line in trace:
        record = json.loads(line)
        if "call" not in record: continue  # the script's steps (the target it registers, its calls again)
        assert record["scenario"] == "floods the trace", record["scenario"]
        count += 1
assert count == 12000, count
assert peak < 64 * 1024, peak  # held in memory, the lines took 120 MB more
