# A run stopped by a signal reports what finished and marks the rest interrupted; its report
# files are put in place whole (issue 43, item 6).
check "SIGINT, SIGTERM, a closed TAP pipe, while a scenario runs or a top level is listed: TAP says what finished then Bail out!, JUnit marks the rest interrupted, the trace is kept, then the signal ends the run" \
  $py "$here/interrupted.py" "$sb" "$SB_ROOT/$scenarios" "$work"
row "Run stopped by SIGINT or SIGTERM while its seventh scenario runs, by SIGTERM while a top level is listed, by its TAP reader closing the pipe; with --junit and --trace" 4 \
  "TAP reports the scenarios that finished (the one running as interrupted) and ends with Bail out!; the JUnit report lists every scenario, those not run as interrupted (it said tests=\"0\" before); reports are renamed into place whole; the command then dies by the signal"
