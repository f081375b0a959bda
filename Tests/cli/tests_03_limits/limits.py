# limits.py TAP: limits.lua's offenders are stopped by the limit each meets, and the last scenario runs.
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [False, False, False, False, True], [t.ok for t in tests]
for t, limit in zip(tests, ["--max-instructions", "--max-instructions", "--max-memory", "--max-memory"]):
    y = t.yaml_block
    assert y["outcome"] == "limit" and limit in y["message"], y
    # where the budget ran out (a memory error is raised where no line is known)
    assert limit == "--max-memory" or "limits.lua:" in y["at"], y
