#!/usr/bin/env bash
# Tests of the switchboard command as a user meets it: the staged
# .build/dist/bin/switchboard (scripts/build.sh first) over the scenario
# scripts in Tests/cli/scenarios. Checks exit codes, that prove (TAP 13) and
# tappy (TAP 14) accept the output, that junitparser reads the JUnit XML,
# that each limit stops its offender and the run goes on, the sandbox, the
# --trace records, isolation, --filter, the progress line, call, routes, gen and
# every example in --help; and valgrind memcheck over all of it.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

sb=$SB_ROOT/.build/dist/bin/switchboard
examples=$SB_ROOT/.build/dist/share/switchboard/examples
[ -x "$sb" ] || sb_die "no $sb: run scripts/build.sh first"
# Debian's python3, which has tappy (python3-tap) and python3-junitparser.
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scenarios=Tests/cli/scenarios
cc -std=c99 -Wall -Wextra -Werror -pedantic -shared -fPIC -I include Tests/cli/plugins/stuck.c -o "$work/stuck.so"
# -z nodelete: the thread it may start must outlive dlclose.
cc -std=c99 -Wall -Wextra -Werror -pedantic -D_POSIX_C_SOURCE=200809L -shared -fPIC -Wl,-z,nodelete -I include \
  Tests/cli/plugins/process.c -lpthread -o "$work/process.so"
module_a=$examples/module_a.so
load=(--plugin "$module_a" --targets "$examples/targets")

failures=0
rows=()
# row CLASS CASES OBSERVED: a row of docs/ROBUSTNESS.md, recorded (in
# SB_ROBUSTNESS_LOG, see scripts/robustness.sh) once every check passed.
row() { rows+=("$1"$'\t'"$2"$'\t'"$3"); }
check() { # check DESCRIPTION COMMAND...: runs COMMAND, reports
  local what=$1; shift
  if "$@" > "$work/check.out" 2>&1; then
    echo "  ok: $what"
  else
    echo "  FAILED: $what"
    sed 's/^/    | /' "$work/check.out" | head -40
    failures=$((failures + 1))
  fi
}
# run NAME [switchboard args...]: stdout to NAME.tap, stderr to NAME.err, status to NAME.status
run() {
  local name=$1; shift
  set +e
  "$sb" "$@" > "$work/$name.tap" 2> "$work/$name.err"
  echo $? > "$work/$name.status"
  set -e
}
status_is() { [ "$(cat "$work/$1.status")" = "$2" ] || { echo "exit status $(cat "$work/$1.status"), expected $2"; cat "$work/$1.err"; return 1; }; }
has() { grep -q -- "$2" "$work/$1" || { echo "no '$2' in $1:"; cat "$work/$1"; return 1; }; }
lacks() { ! grep -q -- "$2" "$work/$1" || { echo "unexpected '$2' in $1"; return 1; }; }

echo "the runner's C"
for file in Sources/SwitchboardRunner/*.c; do
  check "$file compiles with -std=c99 -Wall -Wextra -Werror -pedantic" \
    cc -std=c99 -Wall -Wextra -Werror -pedantic -D_POSIX_C_SOURCE=200809L -fsyntax-only -I include \
      -I Sources/SwitchboardRunner/include -I Sources/CSwitchboard/include -I Sources/SwitchboardLua/include $(pkg-config --cflags lua5.4) "$file"
done

echo "exit status and TAP"
run mixed run "${load[@]}" --junit "$work/mixed.xml" $scenarios/mixed.lua
check "a run with failures exits 1" status_is mixed 1
check "every scenario is reported, in order, and the run goes on" $py - "$work/mixed.tap" <<'EOF'
import sys
from tap.parser import Parser
lines = list(Parser().parse_file(sys.argv[1]))
tests = [l for l in lines if l.category == "test"]
assert [l.ok for l in tests] == [True, False, False, False, True], [l.ok for l in tests]
assert lines[0].category == "version" and lines[0].version == 14, lines[0]
assert lines[1].category == "plan" and lines[1].expected_tests == 5
deep = tests[1].yaml_block
assert deep["outcome"] == "failed" and deep["step"] == "compare", deep
assert deep["message"] == 'expected {user = {langs = {"lua", "swift"}, name = "Ada"}}, got {user = {langs = ' \
    '{"lua", "c"}, name = "Ada"}} (at user.langs[2]): "c" differs from "swift"', deep["message"]
assert deep["at"].endswith("mixed.lua:9"), deep["at"]
err = tests[2].yaml_block
assert err["outcome"] == "error" and "attempt to index a nil value" in err["message"], err
assert "stack traceback" in err["traceback"] and "scenario API" not in err["traceback"], err["traceback"]
assert tests[3].yaml_block["message"] == "expected 3.0, got 3", tests[3].yaml_block
summary = [l for l in lines if l.category == "diagnostic"][-1].text
assert summary.startswith("# 2 passed, 3 failed"), summary
EOF
check "prove accepts the TAP 13 stream" bash -c "
  prove --exec '$sb run --tap-version 13 ${load[*]}' $scenarios/mixed.lua $scenarios/matchers.lua > '$work/prove.txt' 2>&1
  grep -q 'Parse errors' '$work/prove.txt' && { cat '$work/prove.txt'; exit 1; }
  grep -q 'Failed tests:  2-4' '$work/prove.txt' && grep -q 'Tests=7' '$work/prove.txt' || { cat '$work/prove.txt'; exit 1; }"
check "prove accepts the examples and they pass" \
  prove --exec "$sb run --tap-version 13 ${load[*]}" "$examples"/scenarios/*.lua

run matchers run "${load[@]}" $scenarios/matchers.lua
check "the matchers hold and their messages say what differs" status_is matchers 0

echo "JUnit XML"
check "junitparser reads the report: 5 cases, 1 failure vs 2 errors, output" $py - "$work/mixed.xml" <<'EOF'
import sys
from junitparser import JUnitXml, Failure, Error
xml = JUnitXml.fromfile(sys.argv[1])
suites = list(xml)
assert len(suites) == 1 and suites[0].tests == 5, [(s.name, s.tests) for s in suites]
cases = list(suites[0])
kinds = [type(c.result[0]).__name__ if c.result else "passed" for c in cases]
assert kinds == ["passed", "Failure", "Error", "Failure", "passed"], kinds
assert suites[0].failures == 2 and suites[0].errors == 1, (suites[0].failures, suites[0].errors)
assert cases[0].system_out == "visible\t42\nwritten\n", repr(cases[0].system_out)
assert "differs" in cases[1].result[0].message
EOF
run names run "${load[@]}" --junit "$work/names.xml" $scenarios/names.lua
check "names with #, \\, newlines and XML characters survive TAP and JUnit" $py - "$work/names.tap" "$work/names.xml" <<'EOF'
import sys
from tap.parser import Parser
from junitparser import JUnitXml
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [False, False, True], tests
cases = list(list(JUnitXml.fromfile(sys.argv[2]))[0])
assert cases[0].name == 'has # and \\ and <xml & "quotes">', cases[0].name
assert cases[0].system_out == "control \ufffd char and <tags> & ampersands\n", repr(cases[0].system_out)
assert cases[1].name == "fails \u0600# TODO a directive would hide the failure", repr(cases[1].name)
EOF
check "'#' is escaped even after a prepended mark: prove sees no TODO hiding a failure" bash -c "
  prove --exec '$sb run --tap-version 13' $scenarios/names.lua 2>&1 | grep -q 'Failed tests:  1-2'"

echo "limits"
run limits run "${load[@]}" --max-instructions 20000000 --max-memory 32 $scenarios/limits.lua
check "each limit stops its offender and the run continues" $py - "$work/limits.tap" <<'EOF'
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [False, False, False, False, True], [t.ok for t in tests]
for t, limit in zip(tests, ["--max-instructions", "--max-instructions", "--max-memory", "--max-memory"]):
    y = t.yaml_block
    assert y["outcome"] == "limit" and limit in y["message"], y
    # where the budget ran out (a memory error is raised where no line is known)
    assert limit == "--max-memory" or "limits.lua:" in y["at"], y
EOF
run timeout run "${load[@]}" --max-instructions 0 --timeout 1 --filter 'loops forever|after' $scenarios/limits.lua
check "--timeout stops a loop (with no instruction budget)" bash -c "
  grep -q 'the timeout of 1 s was reached (--timeout)' '$work/timeout.tap' && grep -q '^ok 2 ' '$work/timeout.tap'"
run stuck run "${load[@]}" --plugin "$work/stuck.so" --timeout 1 --grace 1 --junit "$work/stuck.xml" $scenarios/stuck.lua $scenarios/isolation.lua
check "a scenario stuck in C: its process is ended past --grace, it is a limit, the run goes on" $py - "$work/stuck.tap" "$work/stuck.xml" <<'EOF'
import sys
from tap.parser import Parser
from junitparser import JUnitXml
lines = list(Parser().parse_file(sys.argv[1]))
assert not [l for l in lines if l.category == "bail"], "Bail out!"
tests = [l for l in lines if l.category == "test"]
assert [t.ok for t in tests] == [False, True, True, True, True], [(t.ok, t.description) for t in tests]
y = tests[0].yaml_block
assert y["outcome"] == "limit" and "past the timeout of 1 s (--timeout)" in y["message"] \
    and "its process was ended" in y["message"], y
assert sum(s.tests for s in JUnitXml.fromfile(sys.argv[2])) == 5
EOF
check "... and the run's exit status is 1, not 3" status_is stuck 1
row "Scenario stuck in a C action that never returns, under --timeout 1 --grace 1" 1 \
  "its process is ended past the grace; the scenario is reported as a limit and the run goes on (exit status 1)"
# The top level still runs in the runner's own process: stuck there (here
# the second time it runs, when its scenarios are prepared, after the
# listing), the watchdog ends the whole run, leaving the report so far.
printf 'scenario("ok", function() end)\n' > "$work/first.lua"
cat > "$work/stuck_top.lua" <<EOF
local marker = "$work/stuck_top.marker"
local seen = io.open(marker, "r")
if seen then seen:close(); string.find(string.rep("a", 40), string.rep("a*", 40) .. "b") end
io.open(marker, "w"):close()
scenario("never runs", function() end)
EOF
run stucktop run --allow-os --timeout 1 --grace 1 --junit "$work/stucktop.xml" "$work/first.lua" "$work/stuck_top.lua"
check "a top level stuck in C ends the run: exit 3, Bail out!, the JUnit report so far" bash -c "
  [ \$(cat '$work/stucktop.status') = 3 ] && grep -q '^ok 1 ' '$work/stucktop.tap' \
    && grep -q '^Bail out! .*the script.s top level' '$work/stucktop.tap' && grep -q 'switchboard: .*past its timeout' '$work/stucktop.err' \
    && grep -q 'testcase name=\"ok\"' '$work/stucktop.xml' || { cat '$work/stucktop.tap' '$work/stucktop.err'; exit 1; }"

echo "isolation, sandbox, scripts that do not load"
run isolation run "${load[@]}" $scenarios/isolation.lua
check "registrations, routes, caches and globals do not leak between scenarios" status_is isolation 0
SB_PROCESS_PLUGIN="$work/process.so" run processes run "${load[@]}" --allow-os --verbose --junit "$work/processes.xml" \
  $scenarios/processes.lua $scenarios/isolation.lua
check "a process per scenario: globals, targets, routes, a loaded plugin and its state, interceptors stay in it; a crash (abort) or an exit is reported and the run goes on" \
  $py - "$work/processes.tap" "$work/processes.xml" <<'EOF'
import re, sys
from tap.parser import Parser
from junitparser import JUnitXml, Error
lines = list(Parser().parse_file(sys.argv[1]))
tests = [l for l in lines if l.category == "test"]
assert [t.ok for t in tests] == [True, True, False, False, True, True, True, True], [(t.ok, t.description, t.yaml_block) for t in tests]
crash = tests[2].yaml_block
assert crash["outcome"] == "error" and "signal 6" in crash["message"] and "crashed" in crash["message"], crash
exited = tests[3].yaml_block
assert exited["message"] == "the scenario's process exited with status 7 before it reported", exited
pids = re.findall(r"^# pid (\d+)$", open(sys.argv[1]).read(), re.M)
assert len(pids) == 2 and pids[0] != pids[1], pids
cases = list(list(JUnitXml.fromfile(sys.argv[2]))[0])
assert isinstance(cases[2].result[0], Error) and "signal 6" in cases[2].result[0].message, cases[2].result
EOF
check "... and the run exits 1" status_is processes 1
row "Scenario ends the process it runs in: a C action calls abort(); os.exit(7) under --allow-os" 2 \
  "reported as an error naming the signal or the exit status; the scenarios after it run (each scenario has a process of its own)"
row "Scenario leaves globals, targets, routes, a plugin it loaded (with that plugin's static state) and an interceptor behind" 1 \
  "the next scenario sees none of them: it starts from a copy of the state the top level left"
SB_PROCESS_PLUGIN="$work/process.so" run threaded run --allow-os --verbose $scenarios/threaded.lua
check "a thread running when a scenario would fork (a plugin's): scenarios run in the runner's process, still isolated" bash -c "
  [ \$(cat '$work/threaded.status') = 0 ] && [ \$(grep -c '^# pid ' '$work/threaded.tap') = 2 ] \
    && [ \$(grep '^# pid ' '$work/threaded.tap' | sort -u | wc -l) = 1 ] || { cat '$work/threaded.tap'; exit 1; }"
check "... and it says so on standard error, with the reason" has threaded.err \
  "scenarios run in the runner's own process, one after another.*another thread is running"

mkdir -p "$work/meet2" "$work/meet1"
SB_MEETING="$work/meet2" run jobs2 run --allow-os --jobs 2 --trace "$work/jobs2.jsonl" $scenarios/jobs.lua
check "--jobs 2 runs two scenarios at once (each waits for the other); the report and the trace keep the scenarios' order" \
  $py - "$work/jobs2.tap" "$work/jobs2.jsonl" "$work/jobs2.status" <<'PY'
import json, sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [True] * 4 and open(sys.argv[3]).read().strip() == "0", [(t.ok, t.description, t.yaml_block) for t in tests]
assert [t.description.split(": ", 1)[1] for t in tests] == ["meets the second", "meets the first", "calls late", "calls at once"]
calls = [json.loads(line) for line in open(sys.argv[2])]
assert [c["scenario"] for c in calls] == ["calls late", "calls at once"], calls
assert calls[0]["time"] > calls[1]["time"], calls  # made later, written first: the scenarios' order
PY
SB_MEETING="$work/meet1" run jobs1 run --allow-os --jobs 1 $scenarios/jobs.lua
check "--jobs 1 runs them one after another (the first waits in vain)" \
  has jobs1.tap "second never ran at the same time as first"
run jobs0 run --jobs 0 $scenarios/jobs.lua
check "--jobs 0 is a usage error" bash -c "[ \$(cat '$work/jobs0.status') = 64 ] && grep -q 'jobs must be from 1 to 1024' '$work/jobs0.err'"
row "Scenarios run 2 at once (--jobs 2), the later one finishing first" 1 \
  "TAP, JUnit and trace lines keep the order the scenarios are listed in"

run coverage run "${load[@]}" --coverage --coverage-json "$work/coverage.json" --junit "$work/coverage.xml" $examples/scenarios/*.lua
check "--coverage lists the actions no scenario called and those reached only through a fallback: TAP comments, JSON, JUnit" \
  $py - "$work/coverage.tap" "$work/coverage.json" "$work/coverage.xml" "$work/coverage.status" <<'PY'
import json, re, sys
from junitparser import JUnitXml
tap = open(sys.argv[1]).read()
assert open(sys.argv[4]).read().strip() == "0", tap
data = json.load(open(sys.argv[2]))
status = {a["target"] + "." + a["action"]: a["status"] for a in data["actions"]}
# the examples never call A.configCell; Catalog's notFound answers their calls of actions it lacks
assert status["A.configCell"] == "not called" and status["Catalog.notFound"] == "only through a fallback", status
assert status["A.nativeNoImage"] == "called", status
counts = [sum(1 for s in status.values() if s == k) for k in ("called", "only through a fallback", "not called")]
assert counts == [data["called"], data["fallback_only"], data["not_called"]], (counts, data)
summary = "# coverage: %d of %d actions of the plugins and targets loaded were called, %d only through a fallback, %d never" % (
    counts[0], len(status), counts[1], counts[2])
assert summary in tap, tap
listed = dict((m.group(2), m.group(1)) for m in re.finditer(r"^#   (not called|only through a fallback): (\S+)$", tap, re.M))
assert listed == {k: v for k, v in status.items() if v != "called"}, (listed, status)
suites = list(JUnitXml.fromfile(sys.argv[3]))
cov = [s for s in suites if s.name == "switchboard coverage"][0]
assert {p.name: p.value for p in cov.properties()} == status
assert sum(s.tests for s in suites) == 17, [s.tests for s in suites]
PY
run coverage_json run --coverage-json "$work/x.json" $scenarios/isolation.lua
check "--coverage-json without --coverage is a usage error" status_is coverage_json 64

# What a fork shares that a scenario must not (isolation.c), and what a
# hostile scenario or plugin tried against the runner once scenarios were
# forked: each is that scenario's problem only.
seq 1 2000 > "$work/lines.txt"
SB_DATA_FILE="$work/lines.txt" run shared run --plugin "$work/process.so" --verbose --junit "$work/shared.xml" \
  $scenarios/shared_by_fork.lua
check "a file the top level opened, the random seed, the runner's report, its process group, the report's pipe and processes left running are not shared between scenarios" \
  $py - "$work/shared.tap" "$work/shared.xml" "$work/shared.status" <<'EOF'
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
EOF
row "Scenario reads on in a file the top level opened, after another scenario read it to its end" 2 \
  "each reads from where the top level left it: a scenario's process reopens the file (its own position)"
row "Scenarios draw from math.random, and call math.randomseed() with no arguments" 2 \
  "each scenario draws its own numbers: a scenario's process is seeded afresh, and randomseed() draws a seed from entropy"
row "Plugin in a scenario writes forged TAP into every file it can write, signals its process group (kill(0, SIGTERM)), closes every descriptor, leaves a process running" 4 \
  "no forged line reaches the report (the runner's descriptors are closed in a scenario's process); the signal ends that scenario only (a session of its own); a closed pipe is reported as such; the process left ends with its scenario"
printf 'os.exit(0)\nscenario("never runs", function() end)\n' > "$work/exit_top.lua"
run exit_top run "${load[@]}" --allow-os "$work/exit_top.lua" $scenarios/isolation.lua
check "os.exit at the top level (under --allow-os) is an error of that script; the run goes on and reports" bash -c "
  [ \$(cat '$work/exit_top.status') = 1 ] && grep -q 'os.exit in the runner.s own process .* would end the whole run' '$work/exit_top.tap' \
    && grep -q '^# [0-9]* passed, 1 failed' '$work/exit_top.tap' || { cat '$work/exit_top.tap' '$work/exit_top.err'; exit 1; }"
row "Script calls os.exit at its top level under --allow-os" 1 \
  "an error of that script (it would end the whole run); the other scripts run and the report is whole"
printf 'scenario("bad \\xff name", function() end)\n' > "$work/name_bytes.lua"
printf 'scenario(string.rep("n", 1025), function() end)\n' > "$work/name_long.lua"
run names_refused run "$work/name_bytes.lua" "$work/name_long.lua"
check "a scenario name that is not UTF-8, or longer than 1024 bytes, is refused where it is defined" bash -c "
  grep -q 'name must be UTF-8 text' '$work/names_refused.tap' \
    && grep -q 'name must be at most 1024 bytes (this one has 1025)' '$work/names_refused.tap' \
    || { cat '$work/names_refused.tap'; exit 1; }"
row "Script names a scenario with bytes that are not UTF-8, or with 4 MiB" 2 \
  "refused where it is defined, saying why (reports carry the name; a name the report repairs could never be run)"
cat > "$work/swallowed.lua" <<'LUA'
scenario("swallows the memory limit", function()
  local ok, err = pcall(function() local b = {} for i = 1, 300 do b[i] = string.rep("y", (1 << 20) + i) end end)
  print("swallowed", ok, err)
end)
scenario("raises 1 MiB", function() error(string.rep("m", 1 << 20), 0) end)
LUA
run swallowed run --max-memory 16 "$work/swallowed.lua"
check "a pcall cannot swallow the memory limit; a 1 MiB error message is cut in the report" $py - "$work/swallowed.tap" <<'EOF'
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [False, False], [(t.ok, t.yaml_block) for t in tests]
assert tests[0].yaml_block["outcome"] == "limit" and "--max-memory" in tests[0].yaml_block["message"], tests[0].yaml_block
message = tests[1].yaml_block["message"]
assert message.startswith("mmm") and message.endswith("more bytes)") and len(message) < 140 * 1024, len(message)
EOF
row "Scenario catches the memory limit with pcall (string.rep into a table) and goes on" 1 \
  "the limit is the scenario's outcome: a refusal the script saw trips it, whatever catches the error"
row "Scenario raises an error of 1 MiB (32 MiB in review)" 1 "the report keeps its first 128 KiB and says how many bytes were cut"
cat > "$work/noisy.lua" <<'LUA'
local text = string.rep("o", 64 * 1024)
for i = 1, 1000 do scenario("prints 64 KiB " .. i, function() io.write(text) end) end
LUA
check "--junit keeps no test case in memory: 1,000 scenarios printing 64 KiB each, runner under 48 MiB" \
  $py - "$sb" "$work/noisy.lua" "$work/noisy.xml" <<'EOF'
import os, subprocess, sys
from junitparser import JUnitXml
run = subprocess.Popen([sys.argv[1], "run", "--junit", sys.argv[3], sys.argv[2]], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(run.pid, 0)
assert os.waitstatus_to_exitcode(status) == 0, status
cases = list(list(JUnitXml.fromfile(sys.argv[3]))[0])
assert len(cases) == 1000 and len(cases[999].system_out) == 64 * 1024, len(cases)
assert usage.ru_maxrss < 48 * 1024, usage.ru_maxrss  # kept in memory, the cases took 64 MiB more
EOF
row "1,000 scenarios each print 64 KiB, with --junit" 1 "test cases are spooled to a temporary file as they come: the runner's memory does not grow with them"

# The second hostile pass over forked scenarios.
cat > "$work/handler_loop.lua" <<'LUA'
scenario("loops in its xpcall handler", function()
  xpcall(function() error("e") end, function() while true do end end)
end)
scenario("runs after it", function() end)
LUA
run handler_loop run --timeout 0 --max-instructions 1000000 "$work/handler_loop.lua"
check "a message handler that loops is stopped by the instruction limit, even with no timeout" bash -c "
  grep -q '^not ok 1 ' '$work/handler_loop.tap' && grep -q 'instruction budget of 1000000' '$work/handler_loop.tap' \
    && grep -q '^ok 2 ' '$work/handler_loop.tap' || { cat '$work/handler_loop.tap'; exit 1; }"
row "Scenario loops in an xpcall message handler, under --max-instructions with no --timeout" 1 \
  "the limit stops it: once a limit tripped, the script's handlers are not called (they would run with no hook)"
composed=$(printf "$work/caf\xc3\xa9.lua"); decomposed=$(printf "$work/cafe\xcc\x81.lua")
printf 'scenario("s", function() end)\n' > "$composed"
printf 'scenario("s", function() expect("the second file").to_equal("run") end)\n' > "$decomposed"
run unicode_paths run "$composed" "$decomposed" "$composed"
check "two paths that differ only in Unicode form are two scripts; a script given twice runs once" bash -c "
  [ \$(cat '$work/unicode_paths.status') = 1 ] && grep -q '^ok 1 ' '$work/unicode_paths.tap' && grep -q '^not ok 2 ' '$work/unicode_paths.tap' \
    && grep -q '^1..2\$' '$work/unicode_paths.tap' && grep -q 'is given more than once: its scenarios run once' '$work/unicode_paths.err' \
    || { cat '$work/unicode_paths.tap' '$work/unicode_paths.err'; exit 1; }"
row "Scripts given as two paths that differ only in Unicode form (NFC and NFD), and a script given twice" 2 \
  "paths are compared as bytes: each file runs, and fails or passes for itself; a script given twice runs once, with a note"
cat > "$work/steps.lua" <<'LUA'
scenario("names a step with 1025 bytes", function() step(string.rep("s", 1025), function() end) end)
scenario("runs 3,000 steps", function()
  for i = 1, 3000 do step("step " .. i, function() end) end
  error("after the steps")
end)
LUA
run steps run "$work/steps.lua"
check "step names are at most 1024 bytes; a report shows 1,000 steps at most, saying how many it leaves out" \
  $py - "$work/steps.tap" <<'PY'
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert "step(name, fn): name must be at most 1024 bytes (this one has 1025)" in tests[0].yaml_block["message"], tests[0].yaml_block
steps = tests[1].yaml_block["steps"]
assert len(steps) == 1001 and steps[500] == {"name": "(2000 steps not shown)", "status": "not shown"}, (len(steps), steps[500])
assert steps[0]["name"] == "step 1" and steps[-1]["name"] == "step 3000", (steps[0], steps[-1])
PY
row "Scenario names a step with 120 KB, 2,000 times (the runner's memory reached 953 MB in review), or runs 3,000 steps" 2 \
  "a step name past 1024 bytes is refused where it is given; a report lists the first and last 500 steps and how many it leaves out"
cat > "$work/seeded.lua" <<'LUA'
math.randomseed(42)
for i = 1, 2 do scenario("draws " .. i, function() print("drew " .. math.random(1e9)) end) end
LUA
run seeded run --verbose "$work/seeded.lua"
expected_draw=$(lua5.4 -e 'math.randomseed(42) print(math.random(1e9))')
check "a seed the top level chose stays: each scenario draws what it drew when it ran alone" bash -c "
  [ \$(grep -c '^# drew $expected_draw\$' '$work/seeded.tap') = 2 ] || { cat '$work/seeded.tap'; exit 1; }"
row "Script seeds math.random at its top level (math.randomseed(42))" 1 \
  "each scenario draws the numbers lua5.4 draws after that seed (a scenario's process is reseeded only when the script chose no seed)"
cat > "$work/slow_top.lua" <<'LUA'
string.find(string.rep("a", 40), string.rep("a-", 20) .. "b")
scenario("never runs", function() end)
LUA
echo "a stale report" > "$work/stale.xml"
run stale run --junit "$work/stale.xml" --timeout 2 --grace 1 "$work/slow_top.lua"
check "--junit: the report is made at once, so a run ended while listing leaves an empty report, not a stale one" bash -c "
  [ \$(cat '$work/stale.status') = 3 ] && grep -q '<testsuites name=\"switchboard\" tests=\"0\"' '$work/stale.xml' \
    && ! grep -q 'stale' '$work/stale.xml' || { cat '$work/stale.xml'; exit 1; }"
row "A run with --junit ends while a script's top level is listed (stuck in C past --timeout and --grace)" 1 \
  "the JUnit file holds an empty report (made before anything runs), never the previous run's"
cat > "$work/big_tables.lua" <<'LUA'
scenario("fails on a table shared 20 ways at 6 levels", function()
  local t = {}
  for _ = 1, 6 do local up = {} for i = 1, 20 do up[i] = t end t = up end
  expect(t).to_equal({})
end)
scenario("fails on an array of a million", function()
  local t = {} for i = 1, 1000000 do t[i] = i end
  expect(t).to_equal({})
end)
scenario("raises an object with __tostring", function()
  error(setmetatable({ code = 5 }, { __tostring = function() return "custom message" end }))
end)
LUA
run big_tables run --max-instructions 40000000 --timeout 60 "$work/big_tables.lua"
check "failures on a shared or a huge table are reported within 40 million instructions, cut short; __tostring names an error object" \
  $py - "$work/big_tables.tap" <<'PY'
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
for t in tests[:2]:
    b = t.yaml_block
    assert b["outcome"] == "failed" and b["message"].startswith("expected {}, got {") and len(b["message"]) < 20000, len(b["message"])
assert tests[2].yaml_block["message"] == "custom message", tests[2].yaml_block
PY
row "Expectation fails on a table shared 20 ways at 6 levels, and on an array of a million (timed out, and 16.7 s, in review)" 2 \
  "reported as the failure, within 40 million instructions: a message shows 400 entries in all, and the first difference is found without sorting every key"
mkdir -p "$work/fds"
seq 1 10 > "$work/fds/data.txt"
cat > "$work/fds/exhaust.lua" <<'LUA'
files = {}
local dir = arg[0]:gsub("[^/]*$", "")
while true do local f = io.open(dir .. "data.txt") if not f then break end files[#files + 1] = f end
scenario("reads", function() expect(files[1]:read("l")).to_equal("1") end)
LUA
( ulimit -n 256; run exhaust run --junit "$work/fds/report.xml" "$work/fds/exhaust.lua" )
check "a top level that uses every descriptor: the runner says why its scenario cannot run; the JUnit report is still written" bash -c "
  grep -q 'could not tell that it runs one thread only (/proc/self/stat: Too many open files)' '$work/exhaust.err' \
    && grep -q 'cannot open .*exhaust.lua: Too many open files' '$work/exhaust.tap' \
    && grep -q 'testcase name=\"reads\"' '$work/fds/report.xml' || { cat '$work/exhaust.tap' '$work/exhaust.err'; exit 1; }"
row "Script's top level opens files until no descriptor is left (ulimit -n 256), with --junit" 1 \
  "each of its scenarios is an error saying so (no descriptor is left to run it), and stderr why; the JUnit report (open from the start) is written"

# The third hostile pass: --coverage, --jobs, output paths.
mkdir -p "$work/evil_targets"
cat > "$work/evil_targets/Target_Evil.lua" <<'LUA'
return {
  plain = function() return 1 end,
  ["tab\there"] = function() return 2 end,
  ["nl\nnot ok 99 - injected by an action name"] = function() return 3 end,
  ["x\ncalled\tEvil\tplain"] = function() return 4 end,
  ["never\nBail out! injected"] = function() return 5 end,
  ["caf\u{e9}"] = function() return 6 end,
  ["cafe\u{301}"] = function() return 7 end,
  ["cr\r"] = function() return 8 end,
}
LUA
cat > "$work/evil_coverage.lua" <<'LUA'
scenario("calls some hostile names", function()
  expect(sb.perform("Evil", "x\ncalled\tEvil\tplain")).to_equal(4)
  expect(sb.perform("Evil", "tab\there")).to_equal(2)
  expect(sb.perform("Evil", "cafe\u{301}")).to_equal(7)
  expect(sb.perform("Evil", "cr\r")).to_equal(8)
  sb.target("Fixture", { a = function() return 1 end })
  expect(sb.perform("Fixture", "a")).to_equal(1)
end)
LUA
run evil_coverage run --targets "$work/evil_targets" --coverage --coverage-json "$work/evil_coverage.json" "$work/evil_coverage.lua"
check "--coverage: action names with tabs, newlines, CR and Unicode twins neither forge TAP lines nor each other's status" \
  $py - "$work/evil_coverage.tap" "$work/evil_coverage.json" "$work/evil_coverage.status" <<'PY'
import json, sys
tap = open(sys.argv[1], newline="").read()
assert open(sys.argv[3]).read().strip() == "0", tap
lines = tap.split("\n")
assert not any(l.startswith(("not ok 99", "Bail out!", "called")) for l in lines), tap
assert "\r" not in tap, repr(tap)
status = {a["action"]: a["status"] for a in json.load(open(sys.argv[2]))["actions"] if a["target"] == "Evil"}
assert status == {"plain": "not called", "tab\there": "called", "nl\nnot ok 99 - injected by an action name": "not called",
                  "x\ncalled\tEvil\tplain": "called", "never\nBail out! injected": "not called",
                  "caf\u00e9": "not called", "cafe\u0301": "called", "cr\r": "called"}, status
assert not any(a["target"] == "Fixture" for a in json.load(open(sys.argv[2]))["actions"])
PY
row "Coverage of a Lua target whose action names hold tabs, newlines with TAP lines after them, a CR, and Unicode twins (NFC, NFD)" 8 \
  "names travel escaped and are compared as bytes: each action gets its own status; TAP comments escape them (no forged line)"
printf 'error("boom at load")\n' > "$work/evil_targets/Target_Broken.lua"
run coverage_broken run --targets "$work/evil_targets" --coverage "$work/evil_coverage.lua"
check "--coverage that cannot list the catalogue says so after the summary and exits 1" bash -c "
  [ \$(cat '$work/coverage_broken.status') = 1 ] && grep -q '^# 1 passed, 0 failed' '$work/coverage_broken.tap' \
    && grep -q '^# coverage: not made: .*boom at load' '$work/coverage_broken.tap' || { cat '$work/coverage_broken.tap'; exit 1; }"
rm "$work/evil_targets/Target_Broken.lua"
mkfifo "$work/report.fifo"
run junit_fifo run --junit "$work/report.fifo" $scenarios/isolation.lua
run junit_trace run --junit "$work/same.out" --trace "$work/same.out" $scenarios/isolation.lua
run junit_script run --junit "$work/evil_coverage.lua" "$work/evil_coverage.lua"
check "outputs that are FIFOs, or the same file as another output or a script, are usage errors before anything runs" bash -c "
  for name in junit_fifo junit_trace junit_script; do [ \$(cat '$work/'\$name.status) = 64 ] || exit 1; done
  grep -q 'not a regular file' '$work/junit_fifo.err' && grep -q 'the same file as --junit' '$work/junit_trace.err' \
    && grep -q 'the same file as the script' '$work/junit_script.err' && grep -q 'scenario(' '$work/evil_coverage.lua'"
row "Run given --junit as a FIFO, --junit and --trace as one file, --junit as one of its scripts" 3 \
  "usage errors (exit 64) before anything runs; nothing blocks, nothing is overwritten"
cat > "$work/leaves.lua" <<'LUA'
local dir = assert(os.getenv("SB_PIDS"))
for i = 1, 2 do scenario("leaves a process " .. i, function()
  os.execute("sleep 97 & echo $! > " .. dir .. "/" .. i)
  local t = os.time() while os.time() - t < 30 do end
end) end
LUA
mkdir -p "$work/pids"
check "a signal that ends the runner ends what its scenarios started too" \
  $py - "$sb" "$work/leaves.lua" "$work/pids" <<'PY'
import os, signal, subprocess, sys, time
env = dict(os.environ, SB_PIDS=sys.argv[3])
run = subprocess.Popen([sys.argv[1], "run", "--jobs", "2", "--allow-os", sys.argv[2]], stdout=subprocess.DEVNULL, env=env)
for _ in range(100):
    if all(os.path.exists(os.path.join(sys.argv[3], str(i))) for i in (1, 2)): break
    time.sleep(0.1)
time.sleep(0.3)
pids = [int(open(os.path.join(sys.argv[3], str(i))).read()) for i in (1, 2)]
run.send_signal(signal.SIGTERM)
run.wait(timeout=30)
def alive(pid):
    try:
        state = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"
for _ in range(50):
    if not any(alive(p) for p in pids): break
    time.sleep(0.1)
else:
    for p in pids:
        if alive(p): os.kill(p, signal.SIGKILL)
    raise AssertionError("processes left running: %s" % pids)
PY
row "Runner ended by SIGTERM while two scenarios (--jobs 2) have each started a process" 1 \
  "the runner ends the scenarios' groups first: no process they started outlives it"

cat > "$work/flood.lua" <<'LUA'
-- The first waits (30 s at most) until the second has flooded the trace.
local done = assert(os.getenv("SB_FLOODED"))
sb.target("L", { f = function() return true end })
scenario("waits for the flood", function()
  local deadline = os.time() + 30
  while os.time() <= deadline do
    local f = io.open(done, "r")
    if f then f:close() return end
  end
  error("the second scenario never finished flooding")
end)
scenario("floods the trace", function()
  local big = string.rep("x", 10000)
  for _ = 1, 12000 do sb.perform("L", "f", { s = big }) end
  assert(io.open(done, "w")):close()
end)
LUA
check "--jobs: a scenario flooding trace lines (120 MB) while an earlier one waits keeps the runner under 64 MiB; every line is written, in order" \
  $py - "$sb" "$work/flood.lua" "$work/flood.jsonl" "$work/flooded" <<'PY'
import json, os, subprocess, sys, time
env = dict(os.environ, SB_FLOODED=sys.argv[4])
run = subprocess.Popen([sys.argv[1], "run", "--jobs", "2", "--allow-os", "--trace", sys.argv[3], sys.argv[2]],
                       stdout=subprocess.PIPE, env=env)
peak = 0
while run.poll() is None:
    try:
        for line in open("/proc/%d/status" % run.pid):
            if line.startswith("VmHWM:"): peak = max(peak, int(line.split()[1]))
    except (FileNotFoundError, ProcessLookupError):
        pass
    time.sleep(0.05)
tap = run.stdout.read().decode()
assert run.returncode == 0 and "# 2 passed, 0 failed" in tap, tap
count = 0
with open(sys.argv[3]) as trace:
    for line in trace:
        record = json.loads(line)
        assert record["scenario"] == "floods the trace", record["scenario"]
        count += 1
assert count == 12000, count
assert peak < 64 * 1024, peak  # held in memory, the lines took 120 MB more
PY
row "Under --jobs 2, a scenario sends 120 MB of trace lines while the scenario before it waits" 1 \
  "what waits for its turn past 256 KiB goes to a temporary file of its own: the runner stays under 64 MiB; every line is written, in order"

check "a top level churning through 40 block sizes under --max-memory 16 passes, and the runner stays under 150 MiB" \
  $py - "$sb" "$scenarios/churn.lua" <<'EOF'
import os, subprocess, sys
run = subprocess.Popen([sys.argv[1], "run", "--max-memory", "16", sys.argv[2]], stdout=subprocess.PIPE)
tap = run.stdout.read().decode()
_, status, usage = os.wait4(run.pid, 0)
assert os.waitstatus_to_exitcode(status) == 0 and "ok 1 " in tap, tap
# The blocks the prepared state parks in free lists by size are capped
# (arena.c); uncapped, this run held 350 MiB.
assert usage.ru_maxrss < 150 * 1024, usage.ru_maxrss
EOF
row "Top level churns through 40 block sizes (8 MiB of strings each, dropped) under --max-memory 16" 1 \
  "it runs as it did before scenarios were forked; the memory parked by size in the prepared state is capped (peak RSS under 150 MiB)"
row "A plugin starts a thread at the top level, so a forked copy of the runner could find a lock another thread held" 1 \
  "scenarios run in the runner's own process instead, each in a fresh state where the top level runs again; isolation holds"
run sandbox run "${load[@]}" $scenarios/sandbox.lua
check "the sandbox refuses os.execute, io.popen, os.exit, loadlib, debug, load_plugin, binary chunks" status_is sandbox 0
run allow run --allow-os $scenarios/allow_os.lua
check "--allow-os lets a scenario run a command" status_is allow 0
run denied run $scenarios/allow_os.lua
check "... which is refused without it" has denied.tap 'os.execute is not available in scenarios (run with --allow-os'
run broken run "${load[@]}" $scenarios/broken.lua $scenarios/toplevel_error.lua $scenarios/isolation.lua
check "scripts that do not load are one failure each; the others run" $py - "$work/broken.tap" <<'EOF'
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [False, False, True, True, True], [(t.ok, t.description) for t in tests]
assert "broken.lua: the script does not load" in tests[0].description and "'end' expected" in tests[0].yaml_block["message"]
assert "the top level fails" in tests[1].yaml_block["message"]
EOF

run escapes run "${load[@]}" --timeout 5 --junit "$work/escapes.xml" $scenarios/escapes.lua
check "escapes found in review are refused or bounded, and the report stays whole" $py - "$work/escapes.tap" "$work/escapes.xml" <<'PY'
import sys
from tap.parser import Parser
from junitparser import JUnitXml
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
oks = [t.ok for t in tests]
assert oks == [True, True, False, True, True, True, False, False, False, True], [(t.ok, t.description, t.yaml_block) for t in tests]
assert tests[2].yaml_block["message"] == "expected {a = 2}, got {a = 1} (at a): 1 differs from 2", tests[2].yaml_block
later = tests[6].yaml_block
assert later["step"] == "later", later
assert [(s["name"], s["status"]) for s in later["steps"]] == [("inner", "failed"), ("later", "failed")], later
c1 = tests[7].yaml_block
assert c1 is not None and "a\x85b\x90c" in c1["message"], c1  # C1 controls escaped, so the YAML parses
assert c1["output"] == "before\\0after", repr(c1["output"])
assert tests[8].yaml_block["message"].endswith("left\\0right"), tests[8].yaml_block  # not cut at the NUL
assert tests[8].yaml_block["traceback"].startswith("stack traceback:"), tests[8].yaml_block  # the message is not repeated
cases = list(list(JUnitXml.fromfile(sys.argv[2]))[0])
assert len(cases) == 10
assert cases[8].result[0].message.endswith("left\\0right"), cases[8].result[0].message
PY
row "Scenario reports with NUL bytes (an error message, its traceback, an expectation's message, output)" 4 \
  "TAP and JUnit show each NUL escaped (a backslash and 0) and keep the text after it"
run escapes2 run "${load[@]}" $scenarios/escapes_again.lua
check "escapes found in a second review are refused" status_is escapes2 0
row "Scenario gives sb.array a table with a locked metatable (an expectation, a caught expectation failure)" 2 \
  "an argument error; the metatable stays; a failure's metatable answers a string, not the runner's marker"
# Special files (a FIFO with no writer, /proc/self/maps, files that are not
# text) on every path the runner reads; --timeout and --grace bound the run
# that hung before (the watchdog's exit 3).
special=$work/special
mkdir -p "$special"
mkfifo "$special/fifo.lua" "$special/Target_Fifo.lua"
ln -s /proc/self/maps "$special/Target_Maps.lua"
printf 'return {\0 0xdeadbeef1234 }\n' > "$special/Target_Binary.lua"
cp "$special/Target_Binary.lua" "$special/binary.lua"
echo "plain text" > "$special/plain.txt"
SB_SPECIAL_DIR=$special run special run --timeout 5 --grace 2 $scenarios/special_files.lua
check "FIFOs, /proc files and files that are not text are refused at once on every path; nothing is quoted" bash -c "
  [ \$(cat '$work/special.status') = 0 ] && [ \$(grep -c '^ok ' '$work/special.tap') = 7 ] \
    || { cat '$work/special.tap' '$work/special.err'; exit 1; }"
row "Scenario reads a special file: a FIFO with no writer (require, loadfile, dofile, io.open, io.lines, package.searchpath, sb.path), /proc/self/maps through sb.path, a file that is not text" 11 \
  "refused at once with an error naming the file; no content quoted; the run goes on"
# A name switched between a regular file and a FIFO by another process
# while io.lines and io.input open it: they read the descriptor they checked.
echo "swapped" > "$special/regular.txt"
ln -s regular.txt "$special/swap"
( end=$((SECONDS + 60)); cd "$special"
  while [ $SECONDS -lt $end ] && [ ! -e stop ]; do
    ln -sf fifo.lua swap.b && mv -T swap.b swap; ln -sf regular.txt swap.a && mv -T swap.a swap
  done ) &
swapper=$!
SB_SWAP=$special/swap run swapped run --timeout 10 --grace 2 $scenarios/swapped_names.lua
touch "$special/stop"; wait $swapper || true
check "io.lines and io.input on a name switched to a FIFO meanwhile never block" bash -c "
  [ \$(cat '$work/swapped.status') = 0 ] && grep -q '^ok 2 ' '$work/swapped.tap' || { cat '$work/swapped.tap'; exit 1; }"
row "Scenario opens a name with io.lines and io.input 20,000 times each while another process switches it between a regular file and a FIFO" 2 \
  "each opens the file once, checked by descriptor: a regular file is read, a FIFO refused; nothing blocks; the run goes on"
run special_script run "${load[@]}" --timeout 5 --grace 2 "$special/fifo.lua" $scenarios/isolation.lua
check "a script that is a FIFO is a usage error before anything runs (never opened)" bash -c "
  [ \$(cat '$work/special_script.status') = 64 ] && grep -q 'fifo.lua: not a regular file' '$work/special_script.err' \
    && [ ! -s '$work/special_script.tap' ] || { cat '$work/special_script.tap' '$work/special_script.err'; exit 1; }"
run finalizers run --timeout 5 --grace 2 $scenarios/finalizers.lua
check "the module's metatables are locked when made: no finalizer gets in, the run goes on" status_is finalizers 0
row "Scenario sets __gc on a metatable the module made (sb.array's marker, an array from a call, the lazily made cancellation token's)" 3 \
  "getmetatable answers a string; no finalizer is registered; the run goes on"
run coroutines run --max-instructions 1000000 --timeout 20 $scenarios/coroutines.lua
check "every coroutine counts against the one instruction budget" $py - "$work/coroutines.tap" <<'PY'
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [False, False, True, True], [(t.ok, t.description, t.yaml_block) for t in tests]
for t in tests[:2]:
    assert t.yaml_block["outcome"] == "limit" and "--max-instructions" in t.yaml_block["message"], t.yaml_block
PY
row "Scenario spreads its work over short coroutines (coroutine.wrap, coroutine.create), under --max-instructions" 2 \
  "the instruction limit stops it; a generator is counted once; the run goes on"
run async run "${load[@]}" --timeout 2 --junit "$work/async.xml" $scenarios/async.lua
check "scenarios wait for actions that answer later (in steps, pcall, xpcall); a call that never ends meets the timeout" \
  $py - "$work/async.tap" "$work/async.status" <<'PY'
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert open(sys.argv[2]).read().strip() == "1"
assert [t.ok for t in tests] == [False, False, False, True, False, True], [(t.ok, t.description, t.yaml_block) for t in tests]
never, yielded, raised, _, failed, _ = [t.yaml_block for t in tests]
assert never["outcome"] == "limit" and never["message"] == \
    "the timeout of 2 s was reached (--timeout) while the scenario waited for an asynchronous call", never
assert yielded["outcome"] == "error" and "yielded outside a call to an asynchronous action" in yielded["message"], yielded
assert raised["outcome"] == "error" and raised["at"].endswith("async.lua:26"), raised
assert "scenario API" not in raised["traceback"], raised["traceback"]
assert failed["outcome"] == "failed" and failed["at"].endswith("async.lua:42"), failed
PY
row "Scenario waits for a call that never ends (a Lua action's sb.later never answered), under --timeout 2" 1 \
  "the timeout stops it with a message naming the wait; the run goes on"
row "Scenario body yields by itself (coroutine.yield at its top level)" 1 \
  "an error saying nothing would resume it, at once"
# One scenario here registers and unregisters 1 MiB names for about 25 s of
# CPU; the timeout is far above that so a loaded machine does not end it.
run charged run --max-memory 32 --timeout 300 $scenarios/charged.lua
check "what the library keeps for a scenario counts against --max-memory" $py - "$work/charged.tap" <<'PY'
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [False] * 6 + [True, False, True, True], [(t.ok, t.description, t.yaml_block) for t in tests]
for t in tests[:6] + tests[7:8]:
    assert t.yaml_block["outcome"] == "limit" and "--max-memory" in t.yaml_block["message"], t.yaml_block
PY
row "Scenario makes the library hold memory: 600 targets with 1 MiB names, a table sharing a subtable at 20 levels, 400 schemes, interceptors and route handlers with 256 KiB names, under --max-memory 32" 5 \
  "the memory limit stops it (charged to the scenario); unregistering, unrouting, sb.scheme(name, false), unintercepting, unobserving and replacing the rules give the charge back; the run goes on"
row "Scenario defines 400 services with 256 KiB interfaces under --max-memory 32, and defines, binds, unbinds, redefines and removes services named and bound with 512 KiB names 20 times" 2 \
  "the memory limit stops the first (charged to the scenario); binding, unbinding, redefining, removing and refusals give the charge back; the run goes on"
row "Scenario names a target after a route's charge (\"pattern:\" .. p) and unregisters it, 400 times, under --max-memory 32" 1 \
  "the memory limit stops it: each kind of name is charged under a key no name can spell"

run slowc run --timeout 1 --max-instructions 0 $scenarios/slow_c.lua
check "--timeout stops a loop of slow C calls on time (no Bail out!)" bash -c "
  grep -q 'the timeout of 1 s was reached' '$work/slowc.tap' && grep -q '^ok 2 ' '$work/slowc.tap' \
    && ! grep -q 'Bail out' '$work/slowc.tap' || { cat '$work/slowc.tap'; exit 1; }"
run slowcco run --timeout 1 --grace 2 --max-instructions 0 $scenarios/slow_c_coroutine.lua
check "--timeout stops a loop of slow C calls inside a coroutine on time (no Bail out!)" bash -c "
  grep -q 'the timeout of 1 s was reached' '$work/slowcco.tap' && grep -q '^ok 2 ' '$work/slowcco.tap' \
    && ! grep -q 'Bail out' '$work/slowcco.tap' || { cat '$work/slowcco.tap'; exit 1; }"
row "Scenario loops over slow C calls (about 20 ms each) inside a coroutine, under --timeout 1 --grace 2" 1 \
  "the timeout stops it on time (the coroutine sees the watchdog's nudge at its next call); the run goes on"
# The same loop behind 30 MB of comments: the watchdog's clock starts before
# the script loads, so its nudge comes early; the check must keep watching.
awk 'BEGIN { for (i = 0; i < 300000; i++) printf "-- %097d\n", i }' > "$work/slow_load.lua"
cat $scenarios/slow_c.lua >> "$work/slow_load.lua"
run slowload run --timeout 1 --grace 2 --max-instructions 0 "$work/slow_load.lua"
check "--timeout stops slow C calls on time after a slow load (an early nudge keeps watching)" bash -c "
  grep -q 'the timeout of 1 s was reached' '$work/slowload.tap' && grep -q '^ok 2 ' '$work/slowload.tap' \
    && ! grep -q 'Bail out' '$work/slowload.tap' || { cat '$work/slowload.tap'; exit 1; }"
# A timeout shorter than the load: the nudge comes before the guard is armed.
run slowload2 run --timeout 0.02 --grace 2 --max-instructions 0 "$work/slow_load.lua"
check "--timeout shorter than the script's load still stops slow C calls (a nudge before arming is kept)" bash -c "
  grep -q 'the timeout of 0.02 s was reached' '$work/slowload2.tap' && ! grep -q 'Bail out' '$work/slowload2.tap' \
    || { cat '$work/slowload2.tap'; exit 1; }"
printf 'scenario("ok", function() end)\nscenario("hangs in C", function() string.find(string.rep("a", 40), string.rep("a*", 40) .. "b") end)\nscenario("runs after it", function() end)\n' > "$work/cloop.lua"
run cloop run --timeout 1 --grace 1 --junit "$work/cloop.xml" "$work/cloop.lua"
check "a stdlib function stuck in C is a limit, the run goes on, the JUnit report is whole" bash -c "
  [ \$(cat '$work/cloop.status') = 1 ] && grep -q '^ok 1 ' '$work/cloop.tap' && grep -q '^not ok 2 ' '$work/cloop.tap' \
    && grep -q '^ok 3 ' '$work/cloop.tap' && ! grep -q '^Bail out!' '$work/cloop.tap' \
    && grep -q 'testcase name=\"runs after it\"' '$work/cloop.xml' || { cat '$work/cloop.tap'; exit 1; }"
printf 'string.find(string.rep("a", 40), string.rep("a*", 40) .. "b")\n' > "$work/csetup.lua"
run csetup call --timeout 1 --grace 1 --setup "$work/csetup.lua" A x
check "call: a --setup stuck in C is ended by the watchdog" bash -c "
  [ \$(cat '$work/csetup.status') = 3 ] && grep -q 'past its timeout' '$work/csetup.err'"

echo "--filter, --trace, progress"
run filter run "${load[@]}" --filter '^passes' $scenarios/mixed.lua
check "--filter runs the matching scenarios only" bash -c "
  grep -q '^1..2$' '$work/filter.tap' && [ \$(cat '$work/filter.status') = 0 ]"
run nomatch run "${load[@]}" --filter 'no such scenario' $scenarios/mixed.lua
check "no scenario matched: exit 1, an empty plan, a message" bash -c "
  [ \$(cat '$work/nomatch.status') = 1 ] && grep -q '^1..0 # SKIP' '$work/nomatch.tap' \
    && grep -q 'no scenario matches --filter' '$work/nomatch.err'"
run badfilter run --filter '(' $scenarios/mixed.lua
check "a bad --filter is a usage error" bash -c "[ \$(cat '$work/badfilter.status') = 64 ] && grep -q 'not a regular expression' '$work/badfilter.err'"
run badjunit run "${load[@]}" --junit "$work/no/such/dir/report.xml" $scenarios/mixed.lua
check "a --junit file in a directory that is not there is a usage error before any scenario runs" bash -c "
  [ \$(cat '$work/badjunit.status') = 64 ] && grep -q 'report.xml: the directory .* is not there' '$work/badjunit.err' \
    && ! grep -q '^ok' '$work/badjunit.tap'"
run trace run "${load[@]}" --trace "$work/trace.jsonl" $scenarios/trace.lua
check "--trace writes one JSON object per perform and open" $py - "$work/trace.jsonl" <<'EOF'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
calls = [(r["call"], r.get("target") or r.get("url")) for r in records]
assert calls == [("perform", "A"), ("perform", "Nobody"), ("open", "app://A/cell?identifier=Traced"),
                 ("open", "app://A/nativeNoImage"), ("perform", "A"), ("perform", "Inner")], calls
for r in records:
    assert r["scenario"] == "traced calls" and r["time"].endswith("Z") and isinstance(r["duration_us"], int), r
    assert r["script"] == "Tests/cli/scenarios/trace.lua", r
    assert list(r)[:5] == ["time", "script", "scenario", "depth", "call"], list(r)
assert [r["depth"] for r in records] == [1, 1, 1, 1, 2, 1], [r["depth"] for r in records]  # Inner.go made A's call
first, missing, url_ok, refused, inner, outer = records
assert first["action"] == "nativeFetchDetailViewController"
assert first["params"] == {"key": "k1", "n": 3, "x": 2.5}, first["params"]
assert first["result"] == {"page": "DemoModuleADetailViewController", "title": "k1"}, first
assert missing["code"] == "ENOTARGET" and "Nobody" in missing["error"] and "result" not in missing, missing
assert missing["params"] == {"bytes": {"$bytes": "fffe"}}, missing["params"]
assert url_ok["result"]["identifier"] == "Traced", url_ok
assert refused["code"] == "EREJECTED", refused
assert outer["params"] == {"nan": "NaN"} and outer["result"]["image"] == "placeholder.png", outer
EOF
echo "replay"
# replay_run NAME TRACE [args...]: switchboard replay with the example plugin and Lua targets.
replay_run() { local name=$1 trace=$2; shift 2; run "$name" replay "${load[@]}" "$@" "$trace"; }
run examples_traced run "${load[@]}" --trace "$work/examples.jsonl" "$examples"/scenarios/*.lua
replay_run replay_examples "$work/examples.jsonl" --junit "$work/replay.xml"
check "replay of every example's trace on the same build: what the trace cannot carry is skipped or differs, as documented" \
  $py - "$work/replay_examples.tap" "$work/replay_examples.status" "$work/examples.jsonl" "$work/replay.xml" <<'PY'
import json, sys
from tap.parser import Parser
from junitparser import JUnitXml
lines = list(Parser().parse_file(sys.argv[1]))
tests = [l for l in lines if l.category == "test"]
records = [json.loads(l) for l in open(sys.argv[3])]
groups = list(dict.fromkeys((r["script"], r["scenario"]) for r in records))
names = ["%s: %s" % (script, scenario if scenario is not None else "(the script's top level)") for script, scenario in groups]
assert [t.description.removeprefix("- ") for t in tests] == names, [t.description for t in tests]
assert open(sys.argv[2]).read().strip() == "1", open(sys.argv[1]).read()
# A route pattern the scenario set, and the cache call option (not in a trace), make these two differ.
failing = {t.description.split(": ", 1)[1]: t.yaml_block for t in tests if not t.ok}
assert sorted(failing) == ["a cached target keeps its state until it is released",
                           "a route pattern sends a URL to a Lua target"], failing
assert [d["call"] for d in failing["a cached target keeps its state until it is released"]["differs"]] == ["A.cell", "A.cell"]
skipped = [s for t in tests if t.yaml_block for s in t.yaml_block.get("skipped", [])]
assert {s["call"] for s in skipped} >= {"A.showAlert", "Drafts.discard", "PayFallback.charge"}, skipped
assert all("<userdata>" in s["reason"] for s in skipped if s["call"] == "A.showAlert"), skipped
summary = [l.text for l in lines if l.category == "diagnostic"][-1]
depth1 = sum(1 for r in records if r["depth"] == 1)
assert "%d calls replayed: " % depth1 in summary and "(failures compare by code, not message)" in summary, summary
cases = [c for suite in JUnitXml.fromfile(sys.argv[4]) for c in suite]
assert len(cases) == len(groups) and sum(1 for c in cases if not c.is_passed) == 2, cases
PY
check "replay of the committed example trace (examples/scenarios/module_a.jsonl): nothing differs, exit 0" bash -c "
  cd '$examples' && '$sb' replay --plugin ./module_a.so --targets targets scenarios/module_a.jsonl > '$work/committed.tap' \
    && grep -q '^# 8 calls replayed: 6 same, 0 differ, 2 skipped' '$work/committed.tap' || { cat '$work/committed.tap'; exit 1; }"
printf '%s\n' '{"time":"t","script":"s.lua","scenario":"prints","depth":1,"call":"perform","target":"A","action":"showAlert","params":{"message":"Hello"},"result":"no callback for the tapped button","duration_us":1}' > "$work/prints.jsonl"
replay_run prints "$work/prints.jsonl"
check "what a plugin prints while replayed goes to standard error, off the TAP stream" bash -c "
  [ \$(cat '$work/prints.status') = 0 ] && ! grep -q 'alert:' '$work/prints.tap' && grep -q 'alert: \"Hello\"' '$work/prints.err' \
    && grep -q '^ok 1 - s.lua: prints' '$work/prints.tap' || { cat '$work/prints.tap' '$work/prints.err'; exit 1; }"

replay_run replay_trace "$work/trace.jsonl"
check "replay of trace.lua: the refused URL is refused again, ENOTARGET compares by code, sb.target's target is skipped" \
  $py - "$work/replay_trace.tap" "$work/replay_trace.status" <<'PY'
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert open(sys.argv[2]).read().strip() == "0" and len(tests) == 1 and tests[0].ok, open(sys.argv[1]).read()
block = tests[0].yaml_block
assert [s["call"] for s in block["skipped"]] == ["Inner.go"] and "registered from Lua" in block["skipped"][0]["reason"], block
assert block["nested_calls_not_replayed"] == 1, block
assert "# 5 calls replayed: 4 same, 0 differ, 1 skipped" in open(sys.argv[1]).read()
PY

# A record edited to say another result, and one claiming a refused URL succeeded.
$py - "$work/trace.jsonl" "$work/edited.jsonl" <<'PY'
import json, sys
out = []
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("target") == "A" and r["action"] == "nativeFetchDetailViewController":
        r["result"]["title"] = "not k1"
    if r.get("url") == "app://A/nativeNoImage":
        del r["code"], r["error"]
        r["result"] = {"image": "placeholder.png", "page": "NoImageViewController"}
    out.append(json.dumps(r))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
replay_run replay_edited "$work/edited.jsonl"
check "a record edited to another result differs: exit 1, the YAML names the calls, recorded and now" \
  $py - "$work/replay_edited.tap" "$work/replay_edited.status" <<'PY'
import json, sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert open(sys.argv[2]).read().strip() == "1" and len(tests) == 1 and not tests[0].ok, open(sys.argv[1]).read()
differs = tests[0].yaml_block["differs"]
assert [d["call"] for d in differs] == ["A.nativeFetchDetailViewController", "open app://A/nativeNoImage"], differs
assert [d["line"] for d in differs] == [1, 4], differs
assert json.loads(differs[0]["recorded"])["result"]["title"] == "not k1", differs[0]
assert json.loads(differs[0]["now"])["result"]["title"] == "k1", differs[0]
assert json.loads(differs[1]["now"]) == {"code": "EREJECTED"}, differs[1]  # the URL policy still refuses it
assert tests[0].yaml_block["message"] == "2 calls differ of 5 replayed", tests[0].yaml_block
PY

# Hand-written records: values that must round-trip, errors compared by code.
mkdir -p "$work/echo_targets"
cat > "$work/echo_targets/Target_Echo.lua" <<'LUA'
return { echo = function(params) return params end,
         fail = function() error("a message that changes: " .. tostring({})) end }
LUA
cat > "$work/roundtrip.lua" <<'LUA'
scenario("values that JSON cannot hold as such", function()
  sb.perform("Echo", "echo", { bytes = "\xff\x00\xfe", nan = 0 / 0, inf = math.huge, ninf = -math.huge,
                               f = 3.0, i = 3, big = 2 ^ 63, list = { 1, "\xc3\xa9", { deep = { true } } } })
  sb.perform("Echo", "fail")
  sb.open("app://Echo/echo?x=1", { y = "\xff" })
end)
LUA
run roundtrip_rec run --targets "$work/echo_targets" --trace "$work/roundtrip.jsonl" "$work/roundtrip.lua"
run roundtrip replay --targets "$work/echo_targets" "$work/roundtrip.jsonl"
check "bytes, NaN, infinities, 3.0 and a failure's changing message replay the same" bash -c "
  [ \$(cat '$work/roundtrip.status') = 0 ] && grep -q '^ok 1 ' '$work/roundtrip.tap' \
    && grep -q '# 3 calls replayed: 3 same, 0 differ, 0 skipped' '$work/roundtrip.tap' \
    && grep -q '\"\$bytes\":\"ff00fe\"' '$work/roundtrip.jsonl' && grep -q '\"nan\":\"NaN\"' '$work/roundtrip.jsonl' \
    || { cat '$work/roundtrip.tap' '$work/roundtrip.err' '$work/roundtrip.jsonl'; exit 1; }"

# not_a_trace NAME PATTERN: replay of $work/NAME.jsonl exits 64 with PATTERN on stderr, no TAP.
not_a_trace() {
  replay_run "$1" "$work/$1.jsonl"
  status_is "$1" 64 && has "$1.err" "$2" && [ ! -s "$work/$1.tap" ]
}
good=$(head -1 "$work/trace.jsonl")
printf '%s\nnot json\n' "$good" > "$work/malformed.jsonl"
check "a line that is not JSON: 64, naming the line" not_a_trace malformed "malformed.jsonl line 2: not JSON"
printf '%s\n{"call":"perform","target":"A","action":"x","params":{},"result":1}\n' "$good" > "$work/old.jsonl"
check "a record without script and depth (an older trace): 64, naming the line" not_a_trace old 'old.jsonl line 2: no "script"'
printf '%s\n[1,2]\n' "$good" > "$work/array.jsonl"
check "a JSON line that is not an object: 64" not_a_trace array "array.jsonl line 2: not a JSON object"
printf '%s\n' "$good" | sed 's/"params"/"par\xffams"/' > "$work/utf8.jsonl"
check "invalid UTF-8: 64, naming the line" not_a_trace utf8 "utf8.jsonl line 1: not JSON"
printf '%s\n' "$good" | sed 's/"k1"/"k\x001"/' > "$work/nul.jsonl"
check "a NUL byte: 64, naming the line and byte" not_a_trace nul "nul.jsonl line 1: a NUL byte at byte"
$py -c "import sys; sys.stdout.write('{\"x\":\"' + 'a' * (17 << 20) + '\"}\n')" > "$work/huge.jsonl"
check "a line over 16 MiB: 64, before it is read whole" not_a_trace huge "huge.jsonl line 1: longer than 16 MiB"
$py -c "print('{\"time\":\"t\",\"script\":\"s\",\"scenario\":\"deep\",\"depth\":1,\"call\":\"perform\",\"target\":\"A\",\"action\":\"nativeNoImage\",\"params\":{\"d\":' + '[' * 300 + ']' * 300 + '},\"result\":null}')" > "$work/deep.jsonl"
check "JSON nested past SB_MAX_DEPTH: 64" not_a_trace deep "deep.jsonl line 1: not JSON"
$py -c "print('{\"time\":\"t\",\"script\":\"s\",\"scenario\":\"deep\",\"depth\":1,\"call\":\"perform\",\"target\":\"Echo\",\"action\":\"echo\",\"params\":{\"d\":' + '[' * 150 + ']' * 150 + '},\"result\":null}')" > "$work/deep150.jsonl"
run deep150 replay --targets "$work/echo_targets" "$work/deep150.jsonl"
check "params 150 deep are re-issued; the result compares as the trace writes it (cut at 32 levels)" bash -c "
  [ \$(cat '$work/deep150.status') = 1 ] && grep -q 'too deep' '$work/deep150.tap' || { cat '$work/deep150.tap' '$work/deep150.err'; exit 1; }"
: > "$work/empty.jsonl"
replay_run replay_empty "$work/empty.jsonl"
check "an empty trace: an empty plan, exit 0" bash -c "
  [ \$(cat '$work/replay_empty.status') = 0 ] && grep -q '^1..0 # SKIP' '$work/replay_empty.tap'"
printf '%s\n' \
  '{"time":"t","script":"forged.lua","scenario":"native by URL","depth":1,"call":"open","url":"app://A/nativeFetchDetailViewController?key=1","params":{"key":"1"},"result":{"page":"DemoModuleADetailViewController","title":"1"},"duration_us":1}' \
  '{"time":"t","script":"forged.lua","scenario":"native by URL","depth":1,"call":"open","url":"APP://A/%6Eative%4EoImage","params":{},"result":{"image":"placeholder.png"},"duration_us":1}' \
  > "$work/forged.jsonl"
replay_run forged "$work/forged.jsonl"
check "a trace claiming native* URLs succeeded: the URL policy refuses them again (differs, exit 1)" $py - "$work/forged.tap" "$work/forged.status" <<'PY'
import json, sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert open(sys.argv[2]).read().strip() == "1" and not tests[0].ok, open(sys.argv[1]).read()
now = [json.loads(d["now"]) for d in tests[0].yaml_block["differs"]]
assert [n.get("code") for n in now] == ["EREJECTED", "EREJECTED"], now
PY
run replay_missing replay "$work/no-such.jsonl"
check "a trace that is not there: 64" bash -c "[ \$(cat '$work/replay_missing.status') = 64 ] && grep -q 'no-such.jsonl: No such file' '$work/replay_missing.err'"
row "switchboard replay over hostile traces (not JSON, not an object, old records, invalid UTF-8, a NUL byte, a 17 MiB line, 300-deep JSON, forged native* URLs)" 8 \
  "exit 64 naming the line for each malformed file; forged native* URLs refused again by the URL policy"

# The hostile pass over replay.
mkdir -p "$work/rp_targets" "$work/rp_wrap_only"
cat > "$work/rp_targets/Target_Counter.lua" <<'LUA'
local n = 0
return { bump = function() n = n + 1 return n end }
LUA
printf 'return { echo = function(p) return p end }\n' > "$work/rp_targets/Target_Echo.lua"
printf 'return { call = function(p) return sb.perform("Echo", "echo", p) end }\n' > "$work/rp_targets/Target_Wrap.lua"
cp "$work/rp_targets/Target_Wrap.lua" "$work/rp_wrap_only/"
printf 'return { x = function() sb.perform = function() return nil, "gone", "ENOTARGET" end return {} end }\n' \
  > "$work/rp_targets/Target_Evil.lua"
cat > "$work/rp_twins.lua" <<'LUA'
scenario("caf\u{E9}", function() expect(sb.perform("Counter", "bump")).to_equal(1) end)
scenario("cafe\u{301}", function() expect(sb.perform("Counter", "bump")).to_equal(1) end)
scenario("wraps", function() expect(sb.perform("Wrap", "call", { v = 1 })).to_equal({ v = 1 }) end)
LUA
run rp_record run --targets "$work/rp_targets" --trace "$work/rp_twins.jsonl" "$work/rp_twins.lua"
run rp_twins replay --targets "$work/rp_targets" "$work/rp_twins.jsonl"
run rp_nested replay --targets "$work/rp_wrap_only" "$work/rp_twins.jsonl"
cat > "$work/rp_evil.jsonl" <<'JSONL'
{"script":"s","scenario":"a","depth":1,"call":"perform","target":"Evil","action":"x","params":null,"result":{}}
{"script":"s","scenario":"a","depth":1,"call":"perform","target":"Echo","action":"echo","params":{"v":1},"result":{"v":999}}
JSONL
run rp_evil replay --targets "$work/rp_targets" "$work/rp_evil.jsonl"
run rp_none replay "$work/rp_twins.jsonl"
cp "$work/rp_twins.jsonl" "$work/rp_keep.jsonl"
run rp_junit replay --targets "$work/rp_targets" --junit "$work/rp_keep.jsonl" "$work/rp_keep.jsonl"
check "replay: Unicode twins are two scenarios; a target a call reaches that is gone differs; a target cannot replace the harness's sb.perform; all skipped exits 1; --junit cannot overwrite the trace" bash -c "
  [ \$(cat '$work/rp_record.status') = 0 ] && [ \$(cat '$work/rp_twins.status') = 0 ] && grep -q '^1..3\$' '$work/rp_twins.tap' \
    && [ \$(cat '$work/rp_nested.status') = 1 ] && grep -q '^not ok 3 ' '$work/rp_nested.tap' \
    && [ \$(cat '$work/rp_evil.status') = 1 ] && grep -q '999' '$work/rp_evil.tap' \
    && [ \$(cat '$work/rp_none.status') = 1 ] && grep -q 'no call could be replayed' '$work/rp_none.err' \
    && [ \$(cat '$work/rp_junit.status') = 64 ] && cmp -s '$work/rp_keep.jsonl' '$work/rp_twins.jsonl' \
    || { tail -n 30 '$work'/rp_*.tap '$work'/rp_*.err; exit 1; }"
row "switchboard replay of a trace with Unicode-twin scenario names, a nested target gone, a target that replaces sb.perform, no loaded targets, --junit naming the trace" 5 \
  "twins are two scenarios; the gone nested target differs (exit 1); the harness keeps its own sb.perform; all calls skipped exits 1; --junit on the trace is a usage error"

check "a progress line on a terminal" bash -c "
  script -qec '$sb run ${load[*]} $scenarios/isolation.lua' /dev/null > '$work/tty.txt'
  grep -q \$'\\e\\[K\\[1/3\\]' '$work/tty.txt'"
check "no progress line when stdout is a pipe" lacks mixed.err $'\e[K'
check "the progress line is cleared before the TAP stream starts" bash -c "
  grep -q \$'\\r\\e\\[KTAP version 14' '$work/tty.txt' && ! grep -q 'listing scenariosTAP' '$work/tty.txt'"

echo "call and routes"
check "call TARGET ACTION JSON prints the result as JSON" bash -c "
  [ \"\$('$sb' call ${load[*]} A nativeFetchDetailViewController '{\"key\": \"42\"}')\" = \
    '{\"page\":\"DemoModuleADetailViewController\",\"title\":\"42\"}' ]"
check "call URL goes through the URL entry" bash -c "
  '$sb' call ${load[*]} 'app://A/cell?identifier=Row' | grep -q '\"identifier\":\"Row\"'"
run refused call "${load[@]}" 'app://A/nativeNoImage'
check "a refused call exits 1 with the code on stderr" bash -c "
  [ \$(cat '$work/refused.status') = 1 ] && [ ! -s '$work/refused.tap' ] && grep -q 'EREJECTED' '$work/refused.err'"
run badjson call "${load[@]}" A nativeNoImage '{"a":'
check "params that are not JSON exit 1 and say where" bash -c "
  [ \$(cat '$work/badjson.status') = 1 ] && grep -q 'line 1, column' '$work/badjson.err'"
run noplugin call --plugin "$work/none.so" A x
check "a plugin that is not there is a usage error (64) naming --plugin and the file" bash -c "
  [ \$(cat '$work/noplugin.status') = 64 ] && grep -q -- '--plugin $work/none.so: No such file' '$work/noplugin.err'"
check "routes --json lists the plugin's and the Lua targets, with where each came from" bash -c "
  '$sb' routes ${load[*]} --json | $py -c '
import json, sys
routes = json.load(sys.stdin)
names = sorted(t[\"name\"] for t in routes[\"targets\"])
assert names == [\"A\", \"Catalog\", \"Net\", \"Settings\"], names
origins = {t[\"name\"]: t[\"origin\"] for t in routes[\"targets\"]}
assert origins[\"A\"].startswith(\"plugin \") and origins[\"A\"].endswith(\"module_a.so\"), origins
assert origins[\"Settings\"] == \"Lua file $examples/targets/Target_Settings.lua\", origins
assert [s[\"scheme\"] for s in routes[\"schemes\"]] == [\"app\"]'"
check "routes prints each action's contract, with its params' docs" bash -c "
  '$sb' routes ${load[*]} > '$work/routes.txt' &&
  grep -q '^    nativePresentImage(image: string) -> dict\$' '$work/routes.txt' &&
  grep -q '^        image  the image to show\$' '$work/routes.txt' &&
  '$sb' routes ${load[*]} --json | $py -c '
import json, sys
a = next(t for t in json.load(sys.stdin)[\"targets\"] if t[\"name\"] == \"A\")
assert a[\"contracts\"][\"showAlert\"][\"params\"][0][\"name\"] == \"message\", a'"
printf 'sb.route("app://item/<int:sku>", "Catalog", "item")\n' > "$work/setup.lua"
check "--setup adds a route pattern that call and routes see" bash -c "
  '$sb' call ${load[*]} --setup '$work/setup.lua' 'app://item/7' | grep -q '\"sku\":7' &&
  '$sb' routes ${load[*]} --setup '$work/setup.lua' | grep -q 'app://item/<int:sku>  ->  Catalog/item'"

echo "gen"
check "gen writes one file per target with contracts, in each language" bash -c "
  for lang in swift c lua; do '$sb' gen --lang \$lang ${load[*]} -o '$work/gen/'\$lang || exit 1; done
  test -f '$work/gen/swift/Mediator+A.swift' && test -f '$work/gen/c/sb_a.h' && test -f '$work/gen/lua/sb_a.lua' &&
  ! test -e '$work/gen/c/sb_settings.h' &&
  grep -q 'func a_showAlert(message: String' '$work/gen/swift/Mediator+A.swift' &&
  grep -q 'sb_a_show_alert(sb_mediator \*m, const char \*message' '$work/gen/c/sb_a.h'"
check "gen reads a catalogue from a file and from standard input" bash -c "
  '$sb' routes ${load[*]} --json > '$work/catalogue.json' &&
  '$sb' gen --lang lua --catalogue '$work/catalogue.json' -o '$work/gen/file' > /dev/null &&
  '$sb' gen --lang lua --catalogue - -o '$work/gen/stdin' < '$work/catalogue.json' > /dev/null &&
  cmp '$work/gen/file/sb_a.lua' '$work/gen/lua/sb_a.lua' && cmp '$work/gen/stdin/sb_a.lua' '$work/gen/lua/sb_a.lua'"
# gen_fails PATTERN ARGS...: gen exits 64 or 1 with PATTERN in its message, and writes nothing.
gen_fails() {
  local pattern=$1; shift
  rm -rf "$work/gen/none"
  if "$sb" gen "$@" -o "$work/gen/none" > "$work/gen.out" 2>&1; then echo "gen succeeded"; return 1; fi
  grep -q -- "$pattern" "$work/gen.out" || { cat "$work/gen.out"; return 1; }
  ! test -e "$work/gen/none"
}
check "gen refuses an unknown language" gen_fails "lang" --lang go "${load[@]}"
check "gen refuses a target that is not loaded" gen_fails "no target named Nope" --lang c --target Nope "${load[@]}"
check "gen refuses a target without contracts" gen_fails "Settings has no action with a contract" --lang c --target Settings "${load[@]}"
# Catalogues written by hand: a type outside the nine, two targets that share a file name.
echo '{"targets":[{"name":"T","actions":["a"],"contracts":{"a":{"params":[{"name":"p","type":"int\" }, os.exit(1) --","required":false}]}}}]}' > "$work/badtype.json"
echo '{"targets":[{"name":"Ab","actions":["a"],"contracts":{"a":{"params":[]}}},{"name":"AB","actions":["a"],"contracts":{"a":{"params":[]}}}]}' > "$work/clash.json"
check "gen refuses a type it does not know" gen_fails "unknown type" --lang lua --catalogue "$work/badtype.json"
check "gen refuses two targets that would write one file" gen_fails "would both be written to sb_ab.h" --lang c --catalogue "$work/clash.json"
echo '{"targets":[{"name":"dict","actions":["new","size"],"contracts":{"new":{"params":[]},"size":{"params":[]}}}]}' > "$work/dict.json"
check "gen keeps a C wrapper off the names switchboard.h uses (target dict, action new)" bash -c "
  '$sb' gen --lang c --catalogue '$work/dict.json' -o '$work/gen/dict' > /dev/null &&
  grep -q 'sb_dict_new_(sb_mediator' '$work/gen/dict/sb_dict.h' && grep -q 'sb_dict_size(sb_mediator' '$work/gen/dict/sb_dict.h' &&
  echo '#include \"sb_dict.h\"' | cc -std=c99 -Wall -Wextra -Werror -pedantic -fsyntax-only -I '$SB_ROOT/include' -I '$work/gen/dict' -x c -"
# An action that answers later: named under "async" (a Swift async closure) or by its contract's "async".
echo '{"targets":[{"name":"Feed","actions":["fetch","peek","now"],"async":["fetch"],"contracts":{"fetch":{"params":[{"name":"id","type":"int","required":true}],"result":"dict"},"peek":{"params":[],"result":"any","async":true},"now":{"params":[]}}}]}' > "$work/async.json"
check "gen writes wrappers that do not wait for async actions (Swift async, C over sb_action_perform_async)" bash -c "
  for lang in swift c lua; do '$sb' gen --lang \$lang --catalogue '$work/async.json' -o '$work/gen/async' > /dev/null || exit 1; done
  grep -q 'func feed_fetch(id: Int,\$' '$work/gen/async/Mediator+Feed.swift' &&
  grep -q '^ *options: CallOptions = .none) async throws(SwitchboardError) -> Value.Dict {\$' '$work/gen/async/Mediator+Feed.swift' &&
  grep -q 'let result = try await call(target: \"Feed\", action: \"fetch\", params: params, options: options)' '$work/gen/async/Mediator+Feed.swift' &&
  grep -q 'func feed_peek(options: CallOptions = .none) async throws' '$work/gen/async/Mediator+Feed.swift' &&
  grep -q 'func feed_now(cacheTarget: Bool = false) throws(SwitchboardError)' '$work/gen/async/Mediator+Feed.swift' &&
  grep -q 'sb_feed_fetch(sb_mediator \*m, int64_t id, const sb_call_options \*options,\$' '$work/gen/async/sb_feed.h' &&
  [ \$(grep -c '^ *sb_done_fn done, void \*userdata) {\$' '$work/gen/async/sb_feed.h') = 2 ] &&
  grep -q 'sb_feed_now(sb_mediator \*m, unsigned flags, sb_value \*\*out)' '$work/gen/async/sb_feed.h' &&
  [ \$(grep -c 'sb_action_perform_async(m, ' '$work/gen/async/sb_feed.h') = 2 ] &&
  grep -q 'async: it answers later' '$work/gen/async/sb_feed.lua' &&
  echo '#include \"sb_feed.h\"' | cc -std=c99 -Wall -Wextra -Werror -pedantic -fsyntax-only -I '$SB_ROOT/include' -I '$work/gen/async' -x c -"
check "routes marks the actions that answer later" bash -c "
  cc -std=c99 -Wall -Wextra -Werror -pedantic -shared -fPIC -I '$SB_ROOT/include' '$SB_ROOT/Tests/c/plugins/typed_plugin.c' -o '$work/typed_plugin.so' &&
  '$sb' routes --plugin '$work/typed_plugin.so' > '$work/routes-async.txt' 2> /dev/null || exit 1
  grep -q '^    later(n: int) -> string  \\[async: answers later\\]\$' '$work/routes-async.txt' &&
  grep -q '^    laterAny()  \\[async: answers later\\]\$' '$work/routes-async.txt' &&
  ! grep -q 'finishLater.*async' '$work/routes-async.txt' &&
  '$sb' routes --plugin '$work/typed_plugin.so' --json | $py -c '
import json, sys
t = next(t for t in json.load(sys.stdin)[\"targets\"] if t[\"name\"] == \"Typed\")
assert t[\"async\"] == [\"later\", \"laterAny\"], t[\"async\"]
assert t[\"contracts\"][\"later\"][\"async\"] is True and \"async\" not in t[\"contracts\"][\"secret\"], t'"
printf 'scenario("calls one action", function()\n  expect(sb.perform("Typed", "countKeys", { a = 1 })).to_equal(1)\nend)\n' > "$work/typed_scenario.lua"
check "run --coverage-json says which actions answer later" bash -c "
  '$sb' run --plugin '$work/typed_plugin.so' --coverage --coverage-json '$work/typed_coverage.json' '$work/typed_scenario.lua' > /dev/null &&
  $py -c '
import json, sys
data = json.load(open(sys.argv[1]))
later = sorted(a[\"action\"] for a in data[\"actions\"] if a.get(\"async\"))
assert later == [\"later\", \"laterAny\"], data
assert all(a[\"async\"] is True for a in data[\"actions\"] if \"async\" in a), data
assert [a[\"status\"] for a in data[\"actions\"] if a[\"action\"] == \"countKeys\"] == [\"called\"], data' '$work/typed_coverage.json'"
check "gen refuses a catalogue that is not JSON" bash -c "echo '{' > '$work/bad.json'; $(declare -f gen_fails); work='$work' sb='$sb' gen_fails 'bad.json' --lang c --catalogue '$work/bad.json'"

echo "help"
check "--version prints the library version" bash -c "[ \"\$('$sb' --version)\" = \"\$(sed -nE 's/^#define SB_VERSION_STRING \"([^\"]+)\"/\\1/p' include/switchboard.h)\" ]"
for command in "" run call replay routes gen; do
  "$sb" $command --help > "$work/help.txt"
  grep -E '^ +\$ switchboard ' "$work/help.txt" | sed -E 's/^ +\$ //' > "$work/examples.txt"
  check "switchboard $command --help shows an example" test -s "$work/examples.txt"
  # An example wrapped by the help formatter would go on in the next line.
  check "switchboard $command --help: no example is wrapped" awk '
    prev && $0 !~ /^ *$/ && $0 !~ /^ +\$ / { print "wrapped after: " prev; bad = 1 }
    { prev = ($0 ~ /^ +\$ switchboard /) ? $0 : "" }
    END { exit bad }' "$work/help.txt"
  while IFS= read -r example; do
    rm -rf "$work/examples" && cp -R "$examples" "$work/examples"
    check "the example works: $example" bash -c "cd '$work/examples' && PATH='$(dirname "$sb"):$PATH' $example > /dev/null"
  done < "$work/examples.txt"
done

echo "what newcomers meet first: usage errors up front, failures that say what happened"
# usage NAME PATTERN [switchboard args...]: exit 64, PATTERN on stderr, no TAP.
usage() {
  local name=$1 pattern=$2; shift 2
  run "$name" "$@"
  status_is "$name" 64 && has "$name.err" "$pattern" && [ ! -s "$work/$name.tap" ]
}
echo "not a plugin" > "$work/text.so"
check "run --plugin that is not there: 64, naming the option" usage nope "--plugin $work/nope.so: No such file" \
  run --plugin "$work/nope.so" $scenarios/mixed.lua
check "run --plugin that is no shared object: 64" usage textso "--plugin $work/text.so: not a shared object" \
  run --plugin "$work/text.so" $scenarios/mixed.lua
check "run --targets that is not there: 64" usage nodir "--targets $work/nodir: No such file" \
  run --targets "$work/nodir" $scenarios/mixed.lua
check "run --targets that is a file: 64" usage filedir "--targets $work/text.so: not a directory" \
  run --targets "$work/text.so" $scenarios/mixed.lua
check "run with a script that is not there: 64, before the others run" usage noscript "the script $work/missing.lua: No such file" \
  run "${load[@]}" $scenarios/isolation.lua "$work/missing.lua"
check "run with a directory for a script: 64" usage dirscript "the script $work: a directory" run "$work"
check "call --targets that is not there: 64" usage callnodir "--targets $work/nodir: No such file" \
  call --targets "$work/nodir" A x
check "call --setup that is not there: 64" usage nosetup "--setup $work/none.lua: No such file" \
  call "${load[@]}" --setup "$work/none.lua" A nativeNoImage
check "routes --plugin that is not there: 64" usage routesnope "--plugin $work/nope.so" routes --plugin "$work/nope.so"
row "Command line names a path that is missing, a directory, not a shared object, or a FIFO (--plugin, --targets, --setup, a script; run, call, routes)" 11 \
  "usage error before anything runs: exit 64 naming the option, the path and the problem; a FIFO is never opened"
check "a mistyped subcommand gets a suggestion" usage rnu "Unknown subcommand 'rnu'. Did you mean 'run'?" rnu x.lua
check "... and 'calll' too" usage calll "Did you mean 'call'?" calll A x
check "a word that is nothing like a subcommand lists them" usage xyzzy "Unknown subcommand 'xyzzy' (run, call" xyzzy
"$sb" call --help > "$work/callhelp.txt"
"$sb" run --help > "$work/runhelp.txt"
check "call --help speaks of the call, not of scenarios" bash -c "
  ! grep -qi 'a scenario' '$work/callhelp.txt' && grep -q 'Seconds the --setup script, and the Lua code' '$work/callhelp.txt'"
check "run --help speaks of scenarios" has runhelp.txt "Seconds a scenario may run"
run duplicate run $scenarios/duplicate_names.lua
check "two scenarios of one name are refused when the script is listed" bash -c "
  [ \$(cat '$work/duplicate.status') = 1 ] && grep -q 'a scenario named .*checkout.* is already defined (at .*duplicate_names.lua:3)' '$work/duplicate.tap' \
    && [ \$(grep -c '^not ok' '$work/duplicate.tap') = 1 ] && ! grep -q '^ok' '$work/duplicate.tap' || { cat '$work/duplicate.tap'; exit 1; }"
run failedcalls run --junit "$work/failedcalls.xml" $scenarios/failed_calls.lua
check "failed calls in matchers, sb.null, suggestions; an error's traceback is the script's alone" $py - "$work/failedcalls.tap" <<'EOF'
import sys
from tap.parser import Parser
tests = [l for l in Parser().parse_file(sys.argv[1]) if l.category == "test"]
assert [t.ok for t in tests] == [True, True, True, False], [(t.ok, t.description, t.yaml_block) for t in tests]
err = tests[3].yaml_block
assert err["outcome"] == "error" and "attempt to index a nil value" in err["message"], err
trace = err["traceback"]
assert trace.startswith("stack traceback:"), trace      # the message is not repeated
assert err["message"] not in trace, trace
assert "scenario API" not in trace and "in function 'pcall'" not in trace, trace
frames = trace.splitlines()[1:]
assert len(frames) == 3 and all("failed_calls.lua:" in f for f in frames), trace  # inner, outer, the scenario
assert frames[0].lstrip().startswith("Tests/cli/scenarios/failed_calls.lua:49:"), trace  # where it was raised
EOF
check "call: a mistyped Lua target names the Target_ file closest to it, never called before" bash -c "
  ! '$sb' call ${load[*]} Catalgo item '{\"sku\": \"X1\"}' 2> '$work/catalgo.err' \
    && grep -q 'ENOTARGET: no target named \"Catalgo\" (did you mean \"Catalog\"?)' '$work/catalgo.err' \
    || { cat '$work/catalgo.err'; exit 1; }"
check "call: a mistyped action names the closest ones" bash -c "
  ! '$sb' call ${load[*]} A nativeNoImag 2> '$work/noimag.err' && grep -q 'ENOACTION: .*(did you mean \"nativeNoImage\"?)' '$work/noimag.err' \
    || { cat '$work/noimag.err'; exit 1; }"

echo "memory"
# valgrind 3.19 cannot read DWARF 5: it runs a copy without debug info.
strip --strip-debug -o "$work/switchboard" "$sb"
memcheck=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
          --show-leak-kinds=definite --suppressions="$SB_ROOT/Tests/c/valgrind.supp" "$work/switchboard")
check "run under valgrind memcheck: no errors, nothing definitely lost (limits and errors included)" env SB_SPECIAL_DIR="$special" bash -c '
  "$@" run '"${load[*]}"' --max-instructions 5000000 --max-memory 16 --trace '"$work"'/vg.jsonl     --junit '"$work"'/vg.xml '"$scenarios"'/{mixed,limits,isolation,sandbox,matchers,trace,names,broken,special_files,finalizers,coroutines}.lua > /dev/null 2> '"$work"'/vg.err
  [ $? = 1 ]' memcheck "${memcheck[@]}"
# A scenario's process sends its report before it ends, so valgrind's verdict
# on it is not in the run's status: it is in valgrind's messages.
check "... in every scenario's process too (each is a fork, under valgrind as well)" bash -c "
  ! grep -E '^==[0-9]+== ' '$work/vg.err' || { cat '$work/vg.err'; exit 1; }"
check "call and routes under valgrind memcheck" bash -c '
  "$@" call '"${load[*]}"' A cell "{\"identifier\": \"x\"}" > /dev/null &&
  "$@" routes '"${load[*]}"' --setup '"$work"'/setup.lua > /dev/null' memcheck "${memcheck[@]}"
check "replay under valgrind memcheck: a trace with differences, skips, bytes and NaN; a malformed one" bash -c '
  "$@" replay '"${load[*]}"' '"$work"'/edited.jsonl > /dev/null; [ $? = 1 ] || exit 1
  "$@" replay --targets '"$work"'/echo_targets '"$work"'/roundtrip.jsonl > /dev/null || exit 1
  "$@" replay '"$work"'/malformed.jsonl 2> /dev/null; [ $? = 64 ]' memcheck "${memcheck[@]}"

[ "$failures" = 0 ] || sb_die "$failures check(s) failed"
if [ -n "${SB_ROBUSTNESS_LOG:-}" ]; then printf '%s\n' "${rows[@]}" >> "$SB_ROBUSTNESS_LOG"; fi
echo "all command checks passed"
