# A scenario flooding the trace while an earlier one waits for its turn (--jobs 2).
check "--jobs: a scenario flooding trace lines (120 MB) while an earlier one waits keeps the runner under 64 MiB; every line is written, in order" \
  $py "$here/flood.py" "$sb" $scenarios/flood.lua "$work/flood.jsonl" "$work/flooded"
row "Under --jobs 2, a scenario sends 120 MB of trace lines while the scenario before it waits" 1 \
  "what waits for its turn past 256 KiB goes to a temporary file of its own: the runner stays under 64 MiB; every line is written, in order"
