# What newcomers meet first: usage errors up front, failures that say what happened.
echo "not a plugin" > "$work/text.so"
check "run --plugin that is not there: 64, naming the option" usage nope "--plugin $work/nope.so: No such file" \
  run --plugin "$work/nope.so" $scenarios/mixed.lua
check "run --plugin that is no shared object: 64" usage textso "--plugin $work/text.so: not a shared object" \
  run --plugin "$work/text.so" $scenarios/mixed.lua
check "run --targets that is not there: 64" usage nodir "--targets $work/nodir: No such file" \
  run --targets "$work/nodir" $scenarios/mixed.lua
check "run --targets that is a file: 64" usage filedir "--targets $work/text.so: not a directory" \
  run --targets "$work/text.so" $scenarios/mixed.lua
check "run with a script that is not there: 64, before the others run" usage noscript "the script $work/missing.lua: No such file" \
  run "${load[@]}" $scenarios/isolation.lua "$work/missing.lua"
check "run with a directory for a script: 64" usage dirscript "the script $work: a directory" run "$work"
check "call --targets that is not there: 64" usage callnodir "--targets $work/nodir: No such file" \
  call --targets "$work/nodir" A x
check "call --setup that is not there: 64" usage nosetup "--setup $work/none.lua: No such file" \
  call "${load[@]}" --setup "$work/none.lua" A nativeNoImage
check "routes --plugin that is not there: 64" usage routesnope "--plugin $work/nope.so" routes --plugin "$work/nope.so"
row "Command line names a path that is missing, a directory, not a shared object, or a FIFO (--plugin, --targets, --setup, a script; run, call, routes)" 11 \
  "usage error before anything runs: exit 64 naming the option, the path and the problem; a FIFO is never opened"
check "a mistyped subcommand gets a suggestion" usage rnu "Unknown subcommand 'rnu'. Did you mean 'run'?" rnu x.lua
check "... and 'calll' too" usage calll "Did you mean 'call'?" calll A x
check "a word that is nothing like a subcommand lists them" usage xyzzy "Unknown subcommand 'xyzzy' (run, call" xyzzy
"$sb" call --help > "$work/callhelp.txt"
"$sb" run --help > "$work/runhelp.txt"
check "call --help speaks of the call, not of scenarios" bash -c "
  ! grep -qi 'a scenario' '$work/callhelp.txt' && grep -q 'Seconds the --setup script, and the Lua code' '$work/callhelp.txt'"
check "run --help speaks of scenarios" has runhelp.txt "Seconds a scenario may run"
run duplicate run $scenarios/duplicate_names.lua
check "two scenarios of one name are refused when the script is listed" bash -c "
  [ \$(cat '$work/duplicate.status') = 1 ] && grep -q 'a scenario named .*checkout.* is already defined (at .*duplicate_names.lua:3)' '$work/duplicate.tap' \
    && [ \$(grep -c '^not ok' '$work/duplicate.tap') = 1 ] && ! grep -q '^ok' '$work/duplicate.tap' || { cat '$work/duplicate.tap'; exit 1; }"
run failedcalls run --junit "$work/failedcalls.xml" $scenarios/failed_calls.lua
check "failed calls in matchers, sb.null, suggestions; an error's traceback is the script's alone" $py "$here/failed_calls.py" "$work/failedcalls.tap"
check "call: a mistyped Lua target names the Target_ file closest to it, never called before" bash -c "
  ! '$sb' call ${load[*]} Catalgo item '{\"sku\": \"X1\"}' 2> '$work/catalgo.err' \
    && grep -q 'ENOTARGET: no target named \"Catalgo\" (did you mean \"Catalog\"?)' '$work/catalgo.err' \
    || { cat '$work/catalgo.err'; exit 1; }"
check "call: a mistyped action names the closest ones" bash -c "
  ! '$sb' call ${load[*]} A nativeNoImag 2> '$work/noimag.err' && grep -q 'ENOACTION: .*(did you mean \"nativeNoImage\"?)' '$work/noimag.err' \
    || { cat '$work/noimag.err'; exit 1; }"
