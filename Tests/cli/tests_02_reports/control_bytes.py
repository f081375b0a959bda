# control_bytes.py TAP XML ERR TRACE: no control character a terminal acts on (C0 but tab and newline,
# DEL, C1) in any of the files; TAP shows control_bytes.lua's output and message escaped.
import re, sys
from tap.parser import Parser
raw = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")
for name in sys.argv[1:]:
    data = open(name, "rb").read()
    found = raw.search(data)
    assert not found, (name, data[max(0, found.start() - 40):found.end() + 40])
tap = open(sys.argv[1], encoding="utf-8").read()
assert "\n# ESC \\x1b[2J clear, BEL \\x07, OSC \\x1b]0;title\\x07, DEL \\x7f, CSI \\u{9b}31m, NEL\n# next, tab\tkept\n" in tap, tap
assert "\n# no newline \\x1b[1A\n" in tap, tap
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [True, False, True, True], [(t.ok, t.yaml_block) for t in tests]
assert tests[1].yaml_block["message"] == "red \x1b[31m and \x9b2J", tests[1].yaml_block  # YAML escapes, the reader decodes
