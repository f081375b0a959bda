# shared.py TAP XML STATUS: shared_by_fork.lua's scenarios share nothing through the fork.
import re, sys, time
from tap.parser import Parser
tap = open(sys.argv[1]).read()
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [True] * 5 + [False, False, True, True], [(t.ok, t.description, t.yaml_block) for t in tests]
assert open(sys.argv[3]).read().strip() == "1"
assert "forged" not in tap and "forged" not in open(sys.argv[2]).read(), tap
assert "signal 15" in tests[5].yaml_block["message"], tests[5].yaml_block
assert "could not send its report: its pipe to the runner was closed" in tests[6].yaml_block["message"], tests[6].yaml_block
for kind in ("random", "reseeded"):
    drawn = re.findall(r"^# %s (\d+)$" % kind, tap, re.M)
    assert len(drawn) == 2 and drawn[0] != drawn[1], (kind, drawn)
left = int(re.search(r"^# left (\d+)$", tap, re.M).group(1))
for _ in range(50):  # ended with its scenario (a zombie until init reaps it)
    try:
        state = open("/proc/%d/stat" % left).read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        break
    if state == "Z":
        break
    time.sleep(0.1)
else:
    raise AssertionError("process %d left by a scenario is still running" % left)
assert re.search(r"^# 7 passed, 2 failed", tap, re.M), tap
