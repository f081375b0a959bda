# output_limit.py TAP XML ERR: floods_output.lua's 128 MiB reach neither standard error nor the
# report: each scenario is held to 64 KiB in all, and the report says how much more it wrote.
import os, sys
from tap.parser import Parser
from junitparser import JUnitXml
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [True] * 4, [(t.ok, t.yaml_block) for t in tests]
err = open(sys.argv[3], "rb").read()
assert len(err) < 4 * 64 * 1024, len(err)  # was 128 MiB
assert err.count(b"the output limit of 64 KiB is reached") == 3, err.count(b"the output limit")
assert b"still written\n" in err
cases = list(list(JUnitXml.fromfile(sys.argv[2]))[0])
# the report of each says how far past the limit it wrote
assert cases[0].system_out.endswith("... (%d more bytes)" % (64 * 2**20 - 64 * 1024)), cases[0].system_out[-80:]
assert cases[1].system_out.endswith("... (%d more bytes)" % (64 * (2**20 + 4) - 64 * 1024)), cases[1].system_out[-80:]
printed = cases[2].system_out
assert printed.startswith("p" * 1000) and "past the limit" not in printed, printed[-200:]
assert printed.endswith("... (%d more bytes)" % (60 * 1024 + 1 + 16 * 1024 + 15 - 64 * 1024)), printed[-80:]
