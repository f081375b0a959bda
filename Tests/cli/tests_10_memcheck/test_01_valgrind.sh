# valgrind memcheck over run, call, routes and replay.
special=$work/special
make_special_files "$special"
printf 'sb.route("app://item/<int:sku>", "Catalog", "item")\n' > "$work/setup.lua"
record_trace "$work/trace.jsonl"
edit_trace "$work/trace.jsonl" "$work/edited.jsonl"
record_roundtrip "$work/roundtrip.jsonl"
printf '%s\nnot json\n' "$(head -1 "$work/trace.jsonl")" > "$work/malformed.jsonl"
# valgrind 3.19 cannot read DWARF 5: it runs a copy without debug info.
strip --strip-debug -o "$work/switchboard" "$sb"
memcheck=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
          --show-leak-kinds=definite --suppressions="$SB_ROOT/Tests/c/valgrind.supp" "$work/switchboard")
check "run under valgrind memcheck: no errors, nothing definitely lost (limits and errors included)" env SB_SPECIAL_DIR="$special" bash -c '
  "$@" run '"${load[*]}"' --max-instructions 5000000 --max-memory 16 --trace '"$work"'/vg.jsonl     --junit '"$work"'/vg.xml '"$scenarios"'/{mixed,limits,isolation,sandbox,matchers,trace,names,broken,special_files,finalizers,coroutines}.lua > /dev/null 2> '"$work"'/vg.err
  [ $? = 1 ]' memcheck "${memcheck[@]}"
# A scenario's process sends its report before it ends, so valgrind's verdict
# on it is not in the run's status: it is in valgrind's messages.
check "... in every scenario's process too (each is a fork, under valgrind as well)" bash -c "
  ! grep -E '^==[0-9]+== ' '$work/vg.err' || { cat '$work/vg.err'; exit 1; }"
check "call and routes under valgrind memcheck" bash -c '
  "$@" call '"${load[*]}"' A cell "{\"identifier\": \"x\"}" > /dev/null &&
  "$@" routes '"${load[*]}"' --setup '"$work"'/setup.lua > /dev/null' memcheck "${memcheck[@]}"
check "replay under valgrind memcheck: a trace with differences, skips, bytes and NaN; a malformed one" bash -c '
  "$@" replay '"${load[*]}"' '"$work"'/edited.jsonl > /dev/null; [ $? = 1 ] || exit 1
  "$@" replay --targets '"$echo_targets"' '"$work"'/roundtrip.jsonl > /dev/null || exit 1
  "$@" replay '"$work"'/malformed.jsonl 2> /dev/null; [ $? = 64 ]' memcheck "${memcheck[@]}"
