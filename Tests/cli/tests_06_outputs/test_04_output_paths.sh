# Output files that would block, or would overwrite another output or an input.
mkfifo "$work/report.fifo"
cp $scenarios/evil_coverage.lua "$work/evil_coverage.lua" # a script of its own, to overwrite
run junit_fifo run --junit "$work/report.fifo" $scenarios/isolation.lua
run junit_trace run --junit "$work/same.out" --trace "$work/same.out" $scenarios/isolation.lua
run junit_script run --junit "$work/evil_coverage.lua" "$work/evil_coverage.lua"
check "outputs that are FIFOs, or the same file as another output or a script, are usage errors before anything runs" bash -c "
  for name in junit_fifo junit_trace junit_script; do [ \$(cat '$work/'\$name.status) = 64 ] || exit 1; done
  grep -q 'not a regular file' '$work/junit_fifo.err' && grep -q 'the same file as --junit' '$work/junit_trace.err' \
    && grep -q 'the same file as the script' '$work/junit_script.err' && grep -q 'scenario(' '$work/evil_coverage.lua'"
row "Run given --junit as a FIFO, --junit and --trace as one file, --junit as one of its scripts" 3 \
  "usage errors (exit 64) before anything runs; nothing blocks, nothing is overwritten"
