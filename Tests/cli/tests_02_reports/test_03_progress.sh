# The progress line a terminal shows (script(1) gives the run one).
check "a progress line on a terminal" bash -c "
  script -qec '$sb run ${load[*]} $scenarios/isolation.lua' /dev/null > '$work/tty.txt'
  grep -q \$'\\e\\[K\\[1/3\\]' '$work/tty.txt'"
check "the progress line is cleared before the TAP stream starts" bash -c "
  grep -q \$'\\r\\e\\[KTAP version 14' '$work/tty.txt' && ! grep -q 'listing scenariosTAP' '$work/tty.txt'"
