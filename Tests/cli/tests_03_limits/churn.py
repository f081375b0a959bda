# churn.py SWITCHBOARD SCRIPT: a top level churning through block sizes passes; the runner stays under 150 MiB.
import os, subprocess, sys
run = subprocess.Popen([sys.argv[1], "run", "--max-memory", "16", sys.argv[2]], stdout=subprocess.PIPE)
tap = run.stdout.read().decode()
_, status, usage = os.wait4(run.pid, 0)
assert os.waitstatus_to_exitcode(status) == 0 and "ok 1 " in tap, tap
# The blocks the prepared state parks in free lists by size are capped
# (arena.c); uncapped, this run held 350 MiB.
assert usage.ru_maxrss < 150 * 1024, usage.ru_maxrss
