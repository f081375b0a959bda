# broken.py TAP: scripts that do not load are one failure each; the others run.
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [False, False, True, True, True], [(t.ok, t.description) for t in tests]
assert "broken.lua: the script does not load" in tests[0].description and "'end' expected" in tests[0].yaml_block["message"]
assert "the top level fails" in tests[1].yaml_block["message"]
