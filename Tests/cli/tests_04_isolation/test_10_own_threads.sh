# The library's own threads do not cost a script its isolation; when a thread keeps the runner
# from forking, the message names it (issue 43, item 9).
cc -std=c99 -Wall -Wextra -Werror -pedantic -shared -fPIC -I include Tests/c/plugins/typed_plugin.c -o "$work/typed.so"
run settled run --plugin "$work/typed.so" --allow-os --verbose $scenarios/own_threads.lua
two_processes() {
  [ "$(cat "$work/settled.status")" = 0 ] && [ "$(grep -c '^# pid ' "$work/settled.tap")" = 2 ] \
    && [ "$(grep '^# pid ' "$work/settled.tap" | sort -u | wc -l)" = 2 ] && ! grep -q "runner's own process" "$work/settled.err" \
    || { cat "$work/settled.tap" "$work/settled.err"; return 1; }
}
check "a call with a timeout at the top level (the library's watch thread): scenarios still fork, each in a process of its own" two_processes
SB_PENDING=1 run pending run --plugin "$work/typed.so" --allow-os --verbose $scenarios/own_threads.lua
check "the watch busy with a call still waiting: the message says it is the library's own thread, by name" has pending.err \
  "after the script's top level 1 other thread is running: 1 named \"sb-watch\" (the library's own: it did not exit when asked)"
SB_PROCESS_PLUGIN="$process_plugin" run threaded run --allow-os $scenarios/threaded.lua
check "a plugin's threads: the message counts them and says they are not the library's" has threaded.err \
  "after the script's top level 2 other threads are running: 2 named \"switchboard\" (not the library's: a plugin's?)"
row "Script's top level makes a call with a timeout that waits for an action answering later (the library starts its watch thread); the call left waiting; a plugin's threads" 3 \
  "scenarios still fork once the call is over (the runner asks the library's idle threads to exit first); otherwise the message names each thread running and whether it is the library's (it blamed \"a plugin's\" thread)"
