# No output may overwrite an input (issue 43, item 7): --junit, --trace, --coverage-json and
# replay's --junit against plugins, files under --targets, scripts and traces, by their own
# name, a symlink or a hard link; all on copies in $work.
cp "$module_a" "$work/m.so"
cp -R "$examples/targets" "$work/tg"
mkdir -p "$work/tg/sub" && echo 'return {}' > "$work/tg/sub/deep.lua"
echo 'return {}' > "$work/tg/sub/"$'\xff'".lua" # a name that is not UTF-8
cp -R "$work/tg" "$work/tg.orig" && cp "$work/m.so" "$work/m.so.orig"
printf 'scenario("passes", function() end)\n' > "$work/s.lua"
ln -s "$work/m.so" "$work/link.xml"
ln "$work/tg/Target_Settings.lua" "$work/hard.xml"
ln "$work/tg/sub/"$'\xff'".lua" "$work/bytes.xml"
ln -s "$work/tg/sub" "$work/sublink"
record_trace "$work/trace.jsonl" && ln "$work/trace.jsonl" "$work/trace-link.xml"

# refused NAME PATTERN ARGS...: exit 64 naming PATTERN, nothing run, every input as it was.
refused() {
  local name=$1 pattern=$2; shift 2
  usage "$name" "$pattern" "$@" && cmp "$work/m.so" "$work/m.so.orig" && diff -r "$work/tg" "$work/tg.orig" > /dev/null \
    && grep -q 'scenario(' "$work/s.lua" && [ -s "$work/trace.jsonl" ] && [ ! -e "$work/tg/Target_New.lua" ]
}
check "--junit naming the plugin: 64, the plugin intact" \
  refused plugin "--junit $work/m.so: the same file as --plugin" run --junit "$work/m.so" --plugin "$work/m.so" "$work/s.lua"
check "--trace naming a target file: 64, the file intact" \
  refused target "--trace $work/tg/Target_Settings.lua: the same file as a file under --targets" \
  run --trace "$work/tg/Target_Settings.lua" --targets "$work/tg" "$work/s.lua"
check "--coverage-json naming a file deep under --targets, through a symlinked directory: 64" \
  refused deep "the same file as a file under --targets $work/tg" \
  run --coverage --coverage-json "$work/sublink/deep.lua" --targets "$work/tg" "$work/s.lua"
links_refused() {
  refused symlink "link.xml: the same file as --plugin" run --junit "$work/link.xml" --plugin "$work/m.so" "$work/s.lua" &&
    refused hardlink "hard.xml: the same file as a file under --targets" run --junit "$work/hard.xml" --targets "$work/tg" "$work/s.lua" &&
    refused bytes "bytes.xml: the same file as a file under --targets" run --junit "$work/bytes.xml" --targets "$work/tg" "$work/s.lua"
}
check "--junit a symlink to the plugin, a hard link to a target file (one named with bytes that are not UTF-8 too): 64" links_refused
check "--trace making a new .lua file in a --targets directory: 64, nothing made" \
  refused new_target "Target_New.lua: a .lua file in --targets $work/tg" \
  run --trace "$work/tg/Target_New.lua" --targets "$work/tg" "$work/s.lua"
replay_refused() {
  refused replay_target "the same file as a file under --targets" \
    replay --junit "$work/tg/Target_Settings.lua" --targets "$work/tg" "$work/trace.jsonl" &&
    refused replay_plugin "the same file as --plugin" replay --junit "$work/m.so" --plugin "$work/m.so" "$work/trace.jsonl" &&
    refused replay_trace "the same file as the trace" replay --junit "$work/trace-link.xml" "$work/trace.jsonl"
}
check "replay --junit naming a target file, the plugin, a hard link to the trace: 64" replay_refused
run allowed run --junit "$work/tg/report.xml" --trace "$work/tg/sub/trace.jsonl" --targets "$work/tg" "$work/s.lua"
check "... while a report that is no input, even in a --targets directory, is written" bash -c "
  [ \$(cat '$work/allowed.status') = 0 ] && grep -q 'testcase name=\"passes\"' '$work/tg/report.xml'"
row "Run given an output (--junit, --trace, --coverage-json, replay --junit) naming a plugin, a file under --targets (deep, through a symlinked directory), a trace, by a symlink or a hard link (to a file whose name is not UTF-8 too), or a new .lua file in a --targets directory" 10 \
  "usage error (exit 64) naming the input, before anything runs; every input is left as it was (the plugin was overwritten with XML, a target file truncated, in review)"
