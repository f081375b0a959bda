#!/usr/bin/env bash
# The replay gate (issue 42): runs the shipped examples (examples/scenarios,
# staged in .build/dist/share/switchboard/examples, as scripts/demo.sh and
# docs/scenarios.md run them) with --trace, then replays that trace on the
# same build. A trace records what a replay needs, so on the build that
# recorded it nothing may differ and nothing may be skipped: the step fails
# if the run fails, if the replay exits non-zero, or if it skipped a call.
# Run scripts/build.sh first; it takes a few seconds.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

sb=$SB_ROOT/.build/dist/bin/switchboard
examples=$SB_ROOT/.build/dist/share/switchboard/examples
[ -x "$sb" ] || sb_die "no $sb: run scripts/build.sh first"
out=$(mktemp -d "${TMPDIR:-/tmp}/switchboard-replay.XXXXXX")
trap 'rm -rf "$out"' EXIT

cd "$examples"
"$sb" run --plugin ./module_a.so --targets targets --trace "$out/examples.jsonl" scenarios/*.lua \
  > "$out/run.tap" 2> "$out/run.err" || { cat "$out/run.tap" "$out/run.err" >&2; sb_die "the examples failed"; }
"$sb" replay --plugin ./module_a.so --targets targets "$out/examples.jsonl" > "$out/replay.tap" 2> "$out/replay.err" ||
  { cat "$out/replay.tap" "$out/replay.err" >&2; sb_die "replaying the examples' trace on the build that recorded it failed"; }
summary=$(tail -n 1 "$out/replay.tap")
case $summary in
  "# "*" calls replayed: "*" same, 0 differ, 0 skipped "*) echo "$(tail -n 1 "$out/run.tap"), then replayed: ${summary#\# }" ;;
  *) cat "$out/replay.tap" >&2; sb_die "the replay of the examples' trace skipped or differed: $summary" ;;
esac
