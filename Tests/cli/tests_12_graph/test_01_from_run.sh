# switchboard graph over a run: the scenarios run as switchboard run runs
# them, and the graph shows what they called.
run graph graph "${load[@]}" $scenarios/graph_calls.lua
check "graph of a run: exit 0, DOT on standard output, no TAP in it" bash -c "
  [ \$(cat '$work/graph.status') = 0 ] && head -2 '$work/graph.tap' | grep -q '^digraph calls {' \
    && ! grep -q '^ok ' '$work/graph.tap' || { cat '$work/graph.tap' '$work/graph.err'; exit 1; }"
check "callers (the script, the action that was answering), counts, failures, fallbacks, coverage" \
  $py "$here/from_run.py" "$work/graph.tap"
run graph_j1 graph "${load[@]}" -j 1 $scenarios/graph_calls.lua
check "the DOT is the same for the same calls (-j 1 and -j 2 give one text)" \
  cmp "$work/graph.tap" "$work/graph_j1.tap"
run graph_file graph "${load[@]}" -o "$work/calls.dot" $scenarios/graph_calls.lua
check "-o FILE.dot: the same DOT in the file, nothing on standard output" bash -c "
  cmp '$work/graph.tap' '$work/calls.dot' && [ ! -s '$work/graph_file.tap' ]"

# The run's selection options choose what runs, and so what is drawn.
run graph_filter graph "${load[@]}" --filter fallbacks $scenarios/graph_calls.lua
check "--filter: only the chosen scenario's calls are drawn" bash -c "
  grep -q 'Ghost.walk' '$work/graph_filter.tap' && ! grep -q 'Shop' '$work/graph_filter.tap'"

# A scenario that fails: its calls are drawn, the run says it did not pass, exit 1.
cat > "$work/failing.lua" <<'LUA'
scenario("passes", function() expect(sb.perform("A", "nativeNoImage").image).to_equal("placeholder.png") end)
scenario("fails", function() sb.perform("A", "cell"); expect(1).to_equal(2) end)
LUA
mkdir "$work/tmp"
TMPDIR="$work/tmp" run failing graph "${load[@]}" "$work/failing.lua"
check "a failing scenario: exit 1, named on standard error, the graph written with its calls" bash -c "
  [ \$(cat '$work/failing.status') = 1 ] && grep -q 'the run did not pass: 1 did not' '$work/failing.err' \
    && grep -q 'not ok 2 - .*failing.lua: fails' '$work/failing.err' && grep -q 'label=\"cell\"' '$work/failing.tap' \
    && grep -q '^}' '$work/failing.tap' || { cat '$work/failing.err' '$work/failing.tap'; exit 1; }"
check "the run's trace and report, in a folder of TMPDIR, are removed" bash -c "[ -z \"\$(ls -A '$work/tmp')\" ]"

# A signal that stops the run: the command dies by it, as run does, and its
# temporary folder (the trace so far, the TAP) goes with it.
mkdir "$work/tmp_signal"
graph_signalled() {
  local ready="$work/ready" status=0
  rm -f "$ready"
  TMPDIR="$work/tmp_signal" SB_READY="$ready" "$sb" graph --allow-os $scenarios/interrupted.lua \
    > "$work/signalled.dot" 2> "$work/signalled.err" &
  local pid=$!
  for _ in $(seq 300); do [ -e "$ready" ] && break; sleep 0.1; done
  kill -TERM $pid
  wait $pid || status=$?
  [ $status = 143 ] && [ -z "$(ls -A "$work/tmp_signal")" ] && grep -q 'Interrupted by signal 15' "$work/signalled.err" \
    || { echo "exit $status"; ls -A "$work/tmp_signal"; cat "$work/signalled.err"; return 1; }
}
check "SIGTERM while a scenario runs: the command dies by it (143), its temporary folder removed" graph_signalled
