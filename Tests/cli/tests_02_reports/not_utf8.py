# not_utf8.py TAP XML: not_utf8.lua's bytes that are not UTF-8 are \xHH in TAP and JUnit, never U+FFFD.
import sys
from tap.parser import Parser
from junitparser import JUnitXml
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
compared, raised, cut = [t.yaml_block for t in tests]
assert compared["message"] == 'expected "\\xfe", got "\\xff"', compared["message"]
assert compared["output"] == "printed \\xff, then \u00e9, then \\xe9 alone\n", compared["output"]
assert raised["message"] == "an overlong slash \\xc0\\xaf and a surrogate \\xed\\xa0\\x80", raised["message"]
# cut at 200 bytes before the two bytes of "é", not between them
assert cut["message"] == 'expected "x", got "' + "a" * 199 + '"...', cut["message"]
cases = list(list(JUnitXml.fromfile(sys.argv[2]))[0])
assert cases[0].result[0].message == compared["message"], cases[0].result[0].message
assert cases[0].system_out == compared["output"], cases[0].system_out
assert "\ufffd" not in open(sys.argv[1], encoding="utf-8").read() + open(sys.argv[2], encoding="utf-8").read()
