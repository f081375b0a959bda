# swallowed.py TAP: the memory limit survives a pcall; a 1 MiB error message is cut.
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [False, False], [(t.ok, t.yaml_block) for t in tests]
assert tests[0].yaml_block["outcome"] == "limit" and "--max-memory" in tests[0].yaml_block["message"], tests[0].yaml_block
message = tests[1].yaml_block["message"]
assert message.startswith("mmm") and message.endswith("more bytes)") and len(message) < 140 * 1024, len(message)
