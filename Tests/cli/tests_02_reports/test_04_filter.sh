# --filter: which scenarios run, and what it says when none does.
run filter run "${load[@]}" --filter '^passes' $scenarios/mixed.lua
check "--filter runs the matching scenarios only" bash -c "
  grep -q '^1..2$' '$work/filter.tap' && [ \$(cat '$work/filter.status') = 0 ]"
run nomatch run "${load[@]}" --filter 'no such scenario' $scenarios/mixed.lua
check "no scenario matched: exit 1, an empty plan, a message" bash -c "
  [ \$(cat '$work/nomatch.status') = 1 ] && grep -q '^1..0 # SKIP' '$work/nomatch.tap' \
    && grep -q 'no scenario matches --filter' '$work/nomatch.err'"
run badfilter run --filter '(' $scenarios/mixed.lua
check "a bad --filter is a usage error" bash -c "[ \$(cat '$work/badfilter.status') = 64 ] && grep -q 'not a regular expression' '$work/badfilter.err'"
