# Scripts that do not load, names refused where they are defined, paths compared as bytes.
run broken run "${load[@]}" $scenarios/broken.lua $scenarios/toplevel_error.lua $scenarios/isolation.lua
check "scripts that do not load are one failure each; the others run" $py "$here/broken.py" "$work/broken.tap"

printf 'scenario("bad \\xff name", function() end)\n' > "$work/name_bytes.lua"
printf 'scenario(string.rep("n", 1025), function() end)\n' > "$work/name_long.lua"
run names_refused run "$work/name_bytes.lua" "$work/name_long.lua"
check "a scenario name that is not UTF-8, or longer than 1024 bytes, is refused where it is defined" bash -c "
  grep -q 'name must be UTF-8 text' '$work/names_refused.tap' \
    && grep -q 'name must be at most 1024 bytes (this one has 1025)' '$work/names_refused.tap' \
    || { cat '$work/names_refused.tap'; exit 1; }"
row "Script names a scenario with bytes that are not UTF-8, or with 4 MiB" 2 \
  "refused where it is defined, saying why (reports carry the name; a name the report repairs could never be run)"
composed=$(printf "$work/caf\xc3\xa9.lua"); decomposed=$(printf "$work/cafe\xcc\x81.lua")
printf 'scenario("s", function() end)\n' > "$composed"
printf 'scenario("s", function() expect("the second file").to_equal("run") end)\n' > "$decomposed"
run unicode_paths run "$composed" "$decomposed" "$composed"
check "two paths that differ only in Unicode form are two scripts; a script given twice runs once" bash -c "
  [ \$(cat '$work/unicode_paths.status') = 1 ] && grep -q '^ok 1 ' '$work/unicode_paths.tap' && grep -q '^not ok 2 ' '$work/unicode_paths.tap' \
    && grep -q '^1..2\$' '$work/unicode_paths.tap' && grep -q 'is given more than once: its scenarios run once' '$work/unicode_paths.err' \
    || { cat '$work/unicode_paths.tap' '$work/unicode_paths.err'; exit 1; }"
row "Scripts given as two paths that differ only in Unicode form (NFC and NFD), and a script given twice" 2 \
  "paths are compared as bytes: each file runs, and fails or passes for itself; a script given twice runs once, with a note"
