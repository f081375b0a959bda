# special.py TAP XML: special_names.lua's names and reasons with XML and TAP characters survive both.
import sys
from tap.parser import Parser
from junitparser import JUnitXml
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [False, True, True, False], [(t.ok, t.description) for t in tests]
text = open(sys.argv[1]).read()
# '#' escaped in names and in reasons: "# TODO" in a name is no directive (prove honours \#; tappy does not)
assert ": hash \\# TODO not a directive\n" in text, text
assert "# SKIP why \\# TODO <no> & ]]>\n" in text and "# TODO later \\# SKIP & <x>\n" in text, text
# (tappy does not honour \# in a description, so these names' directives are checked by prove, in the test)
cases = list(list(JUnitXml.fromfile(sys.argv[2]))[0])
assert cases[0].name == """<b>&amp; "quoted" 'single' ]]>""", cases[0].name
assert cases[2].result[0].message == "why # TODO <no> & ]]>", cases[2].result[0].message
assert cases[3].result[0].message == "todo: later # SKIP & <x>", cases[3].result[0].message
