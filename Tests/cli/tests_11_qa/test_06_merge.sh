# switchboard report merge: the shards' JUnit reports joined into one;
# a part missing or given twice, another selection's part, an unfinished
# or edited report, and files that are no such report are refused.
qa=$scenarios/qa
for k in 1 2 3; do run s$k run --shard $k/3 --junit "$work/s$k.xml" $qa/many.lua; done
run merge report merge -o "$work/all.xml" "$work/s3.xml" "$work/s1.xml" "$work/s2.xml"
check "three shards merged: 200 cases, each once, in one suite" bash -c "
  [ \$(cat '$work/merge.status') = 0 ] && '$py' '$here/merged.py' '$work/all.xml'"
check "... and it says what it merged" has merge.tap "merged 3 shards: 200 scenarios, 0 failed"

refused() { # refused NAME PATTERN ARGS...: exit 1, PATTERN on stderr, no output file
  local name=$1 pattern=$2; shift 2
  rm -f "$work/out.xml"
  run "$name" report merge -o "$work/out.xml" "$@"
  status_is "$name" 1 && has "$name.err" "$pattern" && [ ! -e "$work/out.xml" ]
}
check "a part missing is refused" refused missing "shard 2/3 missing" "$work/s1.xml" "$work/s3.xml"
check "a part given twice is refused" refused twice "shard 1/3 is given twice" "$work/s1.xml" "$work/s1.xml" "$work/s2.xml" "$work/s3.xml"
cp "$work/s2.xml" "$work/copy.xml"
check "a copy of a part under another name is refused too" refused copy "given twice" "$work/s1.xml" "$work/s2.xml" "$work/copy.xml" "$work/s3.xml"
run other run --shard 2/3 --junit "$work/other.xml" --tag net $qa/tagged.lua
check "a part of another selection is refused" refused other "of another selection" "$work/s1.xml" "$work/other.xml" "$work/s3.xml"
run plain run --junit "$work/plain.xml" $qa/tagged.lua
check "a report that is no shard's is refused" refused plain "not the report of one shard" "$work/plain.xml"
echo '<testsuites><testsuite name="x"/></testsuites>' > "$work/foreign.xml"
check "another tool's JUnit is refused" refused foreign "not a JUnit report written by switchboard" "$work/foreign.xml"
head -c 300 "$work/s1.xml" > "$work/cut.xml"
check "a report cut short is refused" refused cut "not a JUnit report written by switchboard" "$work/cut.xml" "$work/s2.xml" "$work/s3.xml"
sed '0,/<testcase /{/<testcase /d}' "$work/s1.xml" > "$work/edited.xml"
check "a report with a case taken out is refused (its header counts more)" refused edited "where its header counts" \
  "$work/edited.xml" "$work/s2.xml" "$work/s3.xml"
sed 's/name="switchboard shard 1\/3/name="switchboard shard 9\/3/' "$work/s1.xml" > "$work/forged.xml"
check "a forged part number out of range is refused" refused forged "not the report of one shard" "$work/forged.xml"
printf '\xff\xfe' > "$work/binary.xml"
check "bytes that are not UTF-8 are refused" refused binary "not UTF-8" "$work/binary.xml"
: > "$work/empty.xml"
check "an empty file is refused" refused empty "not a JUnit report" "$work/empty.xml"
check "writing over one of the reports is a usage error" usage over "the same file as the report" report merge -o "$work/s1.xml" "$work/s1.xml" "$work/s2.xml" "$work/s3.xml"
check "a report that is not there is a usage error" usage nofile "No such file" report merge -o "$work/o.xml" "$work/none.xml"
# special names survive the merge (unescaped and escaped again)
run sp1 run --shard 1/2 --junit "$work/sp1.xml" $qa/special_names.lua
run sp2 run --shard 2/2 --junit "$work/sp2.xml" $qa/special_names.lua
run spmerge report merge -o "$work/sp.xml" "$work/sp1.xml" "$work/sp2.xml"
check "names with XML characters survive the merge; failures and skips are counted" bash -c "
  [ \$(cat '$work/spmerge.status') = 0 ] && '$py' '$here/merged_special.py' '$work/sp.xml'"
row "report merge given a part missing or twice, another selection's part, another tool's or a plain report, a cut, edited or forged report, bytes that are not UTF-8, an empty file" 10 \
  "exit 1 naming the file and the problem, and nothing written; the output over an input or a missing input: usage error (64)"
