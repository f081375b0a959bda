# merged_special.py XML: special_names.lua's shards merged: names unescaped and escaped again, counts kept.
import sys
from junitparser import JUnitXml
s = list(JUnitXml.fromfile(sys.argv[1]))[0]
names = sorted(c.name for c in s)
assert """<b>&amp; "quoted" 'single' ]]>""" in names, names
assert s.tests == 4 and s.failures == 1 and s.skipped == 2, (s.tests, s.failures, s.skipped)
