# Selection: --filter (repeatable, OR-ed, case-insensitive, name or path),
# --filter-out, --tag and --exclude-tag; unknown options are usage errors.
qa=$scenarios/qa
plan() { grep '^1\.\.' "$work/$1.tap"; }
names() { grep -o '^ok [0-9]* - .*' "$work/$1.tap" | sed 's/^ok [0-9]* - [^:]*: //' | tr '\n' '|'; }

run tag run --tag net $qa/tagged.lua
check "--tag net runs the scenarios tagged net" bash -c "[ '$(names tag)' = 'slow network call|net only|' ]" 
run tags run --tag net --exclude-tag slow $qa/tagged.lua
check "--tag net --exclude-tag slow: net only" bash -c "[ \"\$(grep -c '^ok' '$work/tags.tap')\" = 1 ] && grep -q '^ok 1 - .*: net only' '$work/tags.tap'"
run commas run --tag fast,slow $qa/tagged.lua
check "--tag fast,slow: either tag" bash -c "grep -q '^1..2$' '$work/commas.tap'"
run twice run --filter '^fast' --filter 'untagged' $qa/tagged.lua
check "--filter twice: either matches, case-insensitive" bash -c "grep -q '^1..2$' '$work/twice.tap' && grep -q 'Untagged Mixed Case' '$work/twice.tap'"
run path run --filter 'qa/tag' $qa/tagged.lua $scenarios/mixed.lua --plugin "$module_a" --targets "$examples/targets"
check "--filter matches the script's path: all of tagged.lua, nothing of mixed.lua" bash -c "grep -q '^1..4$' '$work/path.tap' && ! grep -q mixed.lua '$work/path.tap'"
run out run --filter-out 'NET' $qa/tagged.lua
check "--filter-out leaves out what matches" bash -c "grep -q '^1..2$' '$work/out.tap' && ! grep -qi 'net' '$work/out.tap'"
run none run --tag nosuchtag $qa/tagged.lua
check "a tag nothing has: exit 1, an empty plan, a message" bash -c "
  [ \$(cat '$work/none.status') = 1 ] && grep -q '^1..0 # SKIP' '$work/none.tap' && grep -q 'no scenario matches the selection' '$work/none.err'"

check "an unknown option is a usage error naming it (not 'the script 1/2')" usage unknown "Unknown option '--shardd'" \
  run --shardd 1/2 $qa/tagged.lua
check "a tag that is not a word is a usage error" usage badtag "--tag a b: a tag is a word" run --tag 'a b' $qa/tagged.lua
check "an empty tag in a list is a usage error" usage emptytag "--exclude-tag slow,: a tag is a word" run --exclude-tag 'slow,' $qa/tagged.lua
check "a bad --filter-out is a usage error" usage badout "--filter-out ( is not a regular expression" run --filter-out '(' $qa/tagged.lua

# Hostile: a huge list of tags on the command line, and in a script.
big=$(python3 -c 'print(",".join("t%d" % i for i in range(20000)) + ",net")')
run hugetags run --tag "$big" $qa/tagged.lua
check "20,000 tags on the command line: read, and net still selects" bash -c "[ \$(cat '$work/hugetags.status') = 0 ] && grep -q '^1..2$' '$work/hugetags.tap'"
cat > "$work/many_tags.lua" <<'LUA'
local tags = {}
for i = 1, 65 do tags[i] = "t" .. i end
scenario("too many tags", { tags = tags }, function() end)
LUA
run manytags run "$work/many_tags.lua"
check "a scenario with 65 tags: the script does not load, saying the limit" bash -c "
  [ \$(cat '$work/manytags.status') = 1 ] && grep -q 'tags must be a list of at most 64 strings' '$work/manytags.tap'"
cat > "$work/bad_options.lua" <<'LUA'
scenario("tag with a space", { tags = { "has space" } }, function() end)
LUA
run badoptions run "$work/bad_options.lua"
check "a tag with a space in a script: refused when listed" bash -c "grep -q 'must be a word' '$work/badoptions.tap'"
cat > "$work/unknown_option.lua" <<'LUA'
scenario("typo", { tag = { "net" } }, function() end)
LUA
run unknownoption run "$work/unknown_option.lua"
check "an unknown key in scenario()'s options (tag for tags): refused, naming it" bash -c "grep -q 'no option .*tag.* (tags, skip and todo are)' '$work/unknownoption.tap'"
row "Selection options: unknown option, tag that is not a word, empty tag, bad regex, 20,000 tags; a scenario with 65 tags or an unknown option key" 8 \
  "usage error (exit 64) naming the option and value; a script's bad scenario options make it fail to load with the rule"
