# Control characters a terminal acts on (C0, DEL, C1: ESC sequences, OSC, CSI, NEL) in what
# reaches a report or a terminal (issue 43, item 11).
run control run --verbose --junit "$work/control.xml" --trace "$work/control.jsonl" $scenarios/control_bytes.lua
check "--verbose output, messages, names and the trace: C0, DEL and C1 escaped in TAP, JUnit and JSON; C1 refused in names" \
  $py "$here/control_bytes.py" "$work/control.tap" "$work/control.xml" "$work/control.err" "$work/control.jsonl"

# Script paths come from the command line, often from a glob: a file name can hold anything.
hostile="$work/"$'\e]0;owned\a\e[2J.lua'
printf 'scenario("passes", function() end)\n' > "$hostile"
run hostile run "$hostile" "$hostile"
script -qec "$(printf '%q ' "$sb" run "$hostile")" /dev/null > "$work/hostile.tty" 2>&1 || true
check "a script's path with ESC, BEL and OSC: escaped in TAP, in messages on standard error, in the progress line" \
  $py "$here/hostile_paths.py" "$work/hostile.tap" "$work/hostile.err" "$work/hostile.tty"
stuck="$work/"$'\e[2J\u009bstuck.lua'
cp $scenarios/slow_top.lua "$stuck"
run stuck_top run --timeout 1 --grace 1 "$stuck"
check "the watchdog's Bail out! line names a script with control characters escaped" bash -c "
  [ \$(cat '$work/stuck_top.status') = 3 ] && grep -q '^Bail out! .*\\\\x1b\\[2J\\\\u{9b}stuck.lua' '$work/stuck_top.tap' \
    && grep -q '^switchboard: .*\\\\x1b\\[2J\\\\u{9b}stuck.lua' '$work/stuck_top.err' \
    && ! grep -q \$'\\e\\[2J' '$work/stuck_top.tap' '$work/stuck_top.err' || { cat -v '$work/stuck_top.tap' '$work/stuck_top.err'; exit 1; }"
row "Scenario prints ESC, BEL, OSC, DEL and C1 (CSI, NEL) under --verbose, raises them, names a scenario with C1; scripts whose paths hold them (TAP, standard error, the progress line, the watchdog's Bail out!); a target's result, error and action names under call and routes" 10 \
  "TAP comments, descriptions and messages on standard error show each as an escape (\\x1b, \\u{9b}); YAML and JUnit escape them; a scenario name with C1 is refused like C0"

# switchboard call and routes print what targets give: their names, results and errors.
"$sb" call --targets Tests/cli/targets/control Control result > "$work/call.out" 2>&1 || true
"$sb" call --targets Tests/cli/targets/control Control fails > "$work/call_fails.out" 2>&1 || true
"$sb" routes --targets Tests/cli/targets/control > "$work/routes.out" 2>&1 || true
"$sb" routes --targets Tests/cli/targets/control --json > "$work/routes_json.out" 2>&1 || true
call_and_routes_escaped() {
  $py -c '
import re, sys
for name in sys.argv[1:]:
    data = open(name, "rb").read()
    found = re.search(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", data)
    assert not found, (name, data)' "$work/call.out" "$work/call_fails.out" "$work/routes.out" "$work/routes_json.out" &&
  grep -q 'ESC \\u001b\[2J BEL \\u0007 CSI \\u009b31m DEL \\u007f' "$work/call.out" &&
  grep -q 'raised \\x1b\]0;title\\x07 \\u{9b}2J' "$work/call_fails.out" &&
  grep -q 'name \\x1b\[2J\\u{9b}31m' "$work/routes.out" || { cat -v "$work/call.out" "$work/call_fails.out" "$work/routes.out"; return 1; }
}
check "call and routes show a target's control characters escaped: its result (JSON), its error, its action names" call_and_routes_escaped
