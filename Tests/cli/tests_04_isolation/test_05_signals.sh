# A signal that ends the runner ends what its scenarios started.
mkdir -p "$work/pids"
check "a signal that ends the runner ends what its scenarios started too" \
  $py "$here/leaves.py" "$sb" $scenarios/leaves.lua "$work/pids"
row "Runner ended by SIGTERM while two scenarios (--jobs 2) have each started a process" 1 \
  "the runner ends the scenarios' groups first: no process they started outlives it"
