# Each replayed scenario in a process of its own: a plugin's static memory starts afresh (plugins
# are never unloaded), and a scenario stuck in C or crashing is that scenario's error.
record() { # record FILE SCENARIO TARGET ACTION RESULT...: one depth-1 perform per line
  local file=$1; shift
  : > "$file"
  while [ $# -gt 0 ]; do
    printf '{"script":"s","scenario":"%s","depth":1,"call":"perform","target":"%s","action":"%s","params":{},"result":%s}\n' \
      "$1" "$2" "$3" "$4" >> "$file"
    shift 4
  done
}
record "$work/stuck.jsonl" before Stuck fine 2 stuck Stuck stuck null after Stuck fine 2
run stuck replay --targets Tests/cli/targets/stuck --timeout 1 --grace 1 "$work/stuck.jsonl"
stuck_is_its_own() {
  [ "$(cat "$work/stuck.status")" = 1 ] && grep -q '^ok 1 - s: before' "$work/stuck.tap" \
    && grep -q '^not ok 2 - s: stuck' "$work/stuck.tap" && grep -q 'still running past its timeout' "$work/stuck.tap" \
    && grep -q '^ok 3 - s: after' "$work/stuck.tap" && ! grep -q 'Bail out' "$work/stuck.tap" \
    || { cat "$work/stuck.tap" "$work/stuck.err"; return 1; }
}
check "a replayed scenario stuck in C past --timeout and --grace is an error of its own; the replay goes on" stuck_is_its_own
record "$work/crash.jsonl" first Process bump 1 crashes Process crash null after Process bump 1
run crash replay --plugin "$process_plugin" "$work/crash.jsonl"
crash_is_its_own() {
  [ "$(cat "$work/crash.status")" = 1 ] && grep -q '^ok 1 - s: first' "$work/crash.tap" \
    && grep -q '^not ok 2 - s: crashes' "$work/crash.tap" && grep -q 'ended by signal 6' "$work/crash.tap" \
    && grep -q '^ok 3 - s: after' "$work/crash.tap" \
    || { cat "$work/crash.tap" "$work/crash.err"; return 1; }
}
check "a replayed scenario whose plugin aborts is an error of its own; the next starts with the plugin's counter afresh" crash_is_its_own
row "switchboard replay of a scenario stuck in C (past --timeout 1 --grace 1), of one whose plugin calls abort(), and of scenarios counting in a plugin's static memory" 3 \
  "each scenario is replayed in a process of its own: the stuck or crashed one is an error and the replay goes on (it ended the whole replay with exit status 3, or crashed it); a plugin's static memory starts afresh for each (plugins are never unloaded)"
