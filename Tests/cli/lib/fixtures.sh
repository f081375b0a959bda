# Fixtures more than one test makes (sourced by run-test.sh, after
# functions.sh).

# make_special_files DIR: a FIFO with no writer (a script and a target),
# a target that is /proc/self/maps, files that are not text (special_files.lua
# reads them from $SB_SPECIAL_DIR).
make_special_files() {
  mkdir -p "$1"
  mkfifo "$1/fifo.lua" "$1/Target_Fifo.lua"
  ln -s /proc/self/maps "$1/Target_Maps.lua"
  printf 'return {\0 0xdeadbeef1234 }\n' > "$1/Target_Binary.lua"
  cp "$1/Target_Binary.lua" "$1/binary.lua"
  echo "plain text" > "$1/plain.txt"
}

# record_trace OUT: the trace of trace.lua's calls, with the example plugin and targets.
record_trace() { run trace run "${load[@]}" --trace "$1" $scenarios/trace.lua; }

# edit_trace TRACE OUT: TRACE with one result changed and a refused URL
# claimed to succeed (edit_trace.py).
edit_trace() { $py "$SB_ROOT/Tests/cli/lib/edit_trace.py" "$1" "$2"; }

# Lua targets that echo their params (and fail with a message that changes).
echo_targets=Tests/cli/targets/echo

# record_roundtrip OUT: the trace of roundtrip.lua (values JSON cannot hold as such).
record_roundtrip() { run roundtrip_rec run --targets $echo_targets --trace "$1" $scenarios/roundtrip.lua; }

# replay_run NAME TRACE [args...]: switchboard replay with the example plugin and Lua targets.
replay_run() { local name=$1 trace=$2; shift 2; run "$name" replay "${load[@]}" "$@" "$trace"; }
