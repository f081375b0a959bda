# hostile_paths.py TAP ERR TTY: scripts whose paths hold ESC, BEL and C1 controls: the TAP
# description, the note on standard error and the progress line show them escaped.
import re, sys
tap, err, tty = (open(name, "rb").read() for name in sys.argv[1:4])
for name, data in (("tap", tap), ("err", err)):
    found = re.search(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", data)
    assert not found, (name, data)
assert b"]0;owned\\x07\\x1b[2J.lua: passes" in tap, tap
assert b"\\x1b]0;owned\\x07\\x1b[2J.lua is given more than once" in err, err
# the terminal's progress line: its own \r\x1b[K, never the path's sequences
assert b"\x1b]0;" not in tty and b"\x07" not in tty and b"\x1b[2J" not in tty, tty
assert b"\\x1b]0;owned\\x07" in tty, tty
