# --shard K/N: disjoint parts that together run each selected scenario once;
# malformed values are usage errors.
qa=$scenarios/qa
: > "$work/all.txt"
for k in 1 2 3 4 5; do
  run shard$k run --shard $k/5 $qa/many.lua
  grep -o '^ok [0-9]* - .*' "$work/shard$k.tap" | sed 's/^ok [0-9]* - //' >> "$work/all.txt"
done
check "5 shards of 200 scenarios: each run exactly once" bash -c "
  [ \$(sort '$work/all.txt' | uniq | wc -l) = 200 ] && [ \$(wc -l < '$work/all.txt') = 200 ]"
check "... no shard is empty (the hash spreads them)" bash -c "for k in 1 2 3 4 5; do grep -q '^ok' '$work/shard'\$k.tap || exit 1; done"
run again run --shard 3/5 $qa/many.lua
check "a shard is the same part every time (the scenarios it runs)" bash -c "
  diff <(grep '^ok' '$work/shard3.tap') <(grep '^ok' '$work/again.tap')"
run one run --shard 1/1 $qa/many.lua
check "--shard 1/1 runs everything" bash -c "grep -q '^1..200$' '$work/one.tap'"
# Adding a scenario moves no other: the old ones stay in their parts.
cp $qa/many.lua "$work/suite.lua"
run base2 run --shard 2/5 "$work/suite.lua"
echo 'scenario("one more", function() expect(1).to_equal(1) end)' >> "$work/suite.lua"
run grown2 run --shard 2/5 "$work/suite.lua"
check "adding a scenario moves no other scenario between shards" bash -c "
  diff <(grep -o '^ok [0-9]* - .*' '$work/base2.tap' | sed 's/^ok [0-9]* - [^:]*: //') \
       <(grep -o '^ok [0-9]* - .*' '$work/grown2.tap' | sed 's/^ok [0-9]* - [^:]*: //' | grep -v 'one more')"
run emptypart run --shard 7/1000 $qa/tagged.lua
check "a shard that holds none of the selection passes with an empty plan" bash -c "
  [ \$(cat '$work/emptypart.status') = 0 ] && grep -q '^1..0 # SKIP shard 7/1000 holds none' '$work/emptypart.tap'"
run withtag run --shard 1/2 --tag net $qa/tagged.lua
run withtag2 run --shard 2/2 --tag net $qa/tagged.lua
check "--shard splits the selection (--tag net: 2 scenarios over 2 shards)" bash -c "
  [ \$(cat '$work/withtag.tap' '$work/withtag2.tap' | grep -c '^ok') = 2 ]"
run junit run --shard 1/2 --junit "$work/shard.xml" $qa/tagged.lua
check "a shard's JUnit report says which part of which selection it holds" bash -c "
  grep -q '<testsuites name=\"switchboard shard 1/2 of 4 selected [0-9a-f]\{16\}\"' '$work/shard.xml'"

for bad in 0/2 3/2 -1/2 1/0 x/y 1/ /2 1/2/3 ' 1/2' 1/2x 99999999/99999999 1/1000001; do
  check "--shard '$bad' is a usage error" usage "bad$(echo "$bad" | tr -c 'a-z0-9' _)" "expected K/N" run "--shard=$bad" $qa/tagged.lua
done
row "--shard K/N malformed: 0/2, 3/2, -1/2, 1/0, x/y, 1/, /2, 1/2/3, ' 1/2', 1/2x, 8 digits, N over 1,000,000" 12 \
  "usage error (exit 64) saying K/N with 1 <= K <= N <= 1,000,000; nothing runs"
