# noisy.py SWITCHBOARD SCRIPT XML: 1,000 scenarios printing 64 KiB each; the runner stays under 48 MiB.
import os, subprocess, sys
from junitparser import JUnitXml
run = subprocess.Popen([sys.argv[1], "run", "--junit", sys.argv[3], sys.argv[2]], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(run.pid, 0)
assert os.waitstatus_to_exitcode(status) == 0, status
cases = list(list(JUnitXml.fromfile(sys.argv[3]))[0])
assert len(cases) == 1000 and len(cases[999].system_out) == 64 * 1024, len(cases)
assert usage.ru_maxrss < 48 * 1024, usage.ru_maxrss  # kept in memory, the cases took 64 MiB more
