#!/usr/bin/env bash
# The installed library, as debugging tools see it: libswitchboard.so.1 (a
# link to libswitchboard.so.VERSION) stripped, its debug info in
# lib/.debug/libswitchboard.so.VERSION.debug linked by .gnu_debuglink, all of it
# DWARF 4 (Debian 12's valgrind 3.19 gives up on DWARF 5); gdb finds the
# library's source lines; a gdb session through the installed library
# (break in an action, backtrace through the library, print a local, list a
# library source line with the README's substitute-path) prints no warning
# or complaint; a C program that links the installed library runs under
# valgrind memcheck with the installed suppressions: 0 errors (leaks
# included), with the library's functions and source lines in its stacks;
# a forked child's threads meet on the runtime's locks and go on (the
# library reads the runtime's thread ids from the debug file).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
scripts/install.sh --prefix "$prefix" --no-build > /dev/null
version=$(sed -nE 's/^#define SB_VERSION_STRING "([^"]+)"/\1/p' include/switchboard.h)
lib="$prefix/lib/libswitchboard.so.1"
debug_name="libswitchboard.so.$version.debug"
debug="$prefix/lib/.debug/$debug_name"

sections=$(readelf -S --wide "$lib")
if grep -Eq ' \.(debug_info|symtab) ' <<< "$sections"; then sb_die "the installed library is not stripped"; fi
[ "$(readelf --string-dump=.gnu_debuglink "$lib" | sed -nE 's/^ *\[ *0\] *//p')" = "$debug_name" ] \
  || sb_die "the installed library has no .gnu_debuglink to $debug_name"
versions=$(scripts/dwarf-versions.py "$debug")
grep -q '^4 ' <<< "$versions" || sb_die "the debug file holds no DWARF 4 unit: $versions"
if grep -qv '^[234] ' <<< "$versions"; then sb_die "the debug file holds units valgrind 3.19 cannot read (version count): $versions"; fi

# gdb, from the stripped library alone, finds the debug file and a source
# line (past the entry: a @_cdecl thunk's first instruction has none).
line=$(gdb -nx -batch -iex 'set complaints 0' -ex 'info line *(sb_mediator_shared+4)' "$lib" 2>&1)
grep -Eq '^Line [0-9]+ of ".*\.swift"' <<< "$line" || sb_die "gdb found no source line in sb_mediator_shared: $line"

# Built and run under valgrind with the lines switchboard.h's opening comment
# gives ("Building a host").
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cc -std=c99 -Wall -Wextra -Werror -pedantic -g examples/c/hello.c \
  $(pkg-config --cflags --libs switchboard) -Wl,-rpath,$(pkg-config --variable=libdir switchboard) -o "$tmp/hello"

# A session as a user has it: gdb as installed, no init files, run from
# another folder. Stop in hello.c's action, which the library calls: the
# backtrace goes through the library to main; step over a line and print the
# local it set; in the library's frame below the action, list its source
# through the README's substitute-path. gdb prints nothing it would complain
# of (missing DWO or module files, a bad index, DWARF errors, missing sources).
session=$(cd "$tmp" && gdb -nx -batch -ex "set substitute-path $SB_DEBUG_SOURCE_DIR $SB_ROOT" \
  -ex 'break hello' -ex run -ex bt -ex next -ex 'print name' -ex 'frame 1' -ex list -ex 'info source' \
  ./hello 2>&1)
complaints=$(grep -Ei 'warning|DWO|could not find|dwarf error|during symbol reading|no such file|complaint|ignoring' <<< "$session" \
  | grep -v '^warning: Error disabling address space randomization' || true)
[ -z "$complaints" ] || { echo "$session"; sb_die "gdb complained about the installed library ($(wc -l <<< "$complaints") lines): $(head -3 <<< "$complaints")"; }
grep -Eq '^#[0-9]+ .*sb_action_perform.* at .*Sources/SwitchboardC/Exports/Mediator\.swift:[0-9]+$' <<< "$session" \
  || { echo "$session"; sb_die "the backtrace does not go through sb_action_perform with its source line"; }
grep -Eq '^#[0-9]+ .* main \(\) at examples/c/hello\.c:[0-9]+$' <<< "$session" || { echo "$session"; sb_die "the backtrace does not reach main"; }
grep -Eq '^\$1 = 0x[0-9a-f]+ "Ada"$' <<< "$session" || { echo "$session"; sb_die "gdb did not print the local name as \"Ada\""; }
grep -q "^Located in $SB_ROOT/Sources/SwitchboardC/Bridge/CFunction.swift" <<< "$session" \
  && grep -Eq '^[0-9]+[[:space:]].*callNative' <<< "$session" \
  || { echo "$session"; sb_die "gdb did not list the library's source through set substitute-path $SB_DEBUG_SOURCE_DIR $SB_ROOT"; }
frames=$(grep -c '^#[0-9]' <<< "$session")
# Default leak kinds count as errors (definite and possible), all are shown so
# the stacks through the library can be read.
status=0
valgrind --leak-check=full --show-leak-kinds=all --error-exitcode=99 \
  --suppressions=$(pkg-config --variable=prefix switchboard)/share/switchboard/valgrind.supp "$tmp/hello" \
  > "$tmp/out" 2> "$tmp/valgrind.log" || status=$?
grep -q 'greeter said: Hello, Ada!' "$tmp/out" || { cat "$tmp/valgrind.log"; sb_die "hello did not run under valgrind"; }
[ "$status" = 0 ] && grep -q 'ERROR SUMMARY: 0 errors' "$tmp/valgrind.log" \
  || { cat "$tmp/valgrind.log"; sb_die "valgrind found errors (exit $status) with the installed suppressions"; }
# A frame in the library with its function and Swift source line: read from the debug file.
frame=$(grep -Em1 'by 0x[0-9A-F]+: sb_[a-z_]+ \([A-Za-z_+]+\.swift:[0-9]+\)' "$tmp/valgrind.log" | sed -E "s/.*: (sb_)/\\1/") \
  || { cat "$tmp/valgrind.log"; sb_die "valgrind showed no function and source line of the library"; }

# A forked child's threads, meeting on the Swift runtime's locks: the library
# finds the runtime's thread ids in its debug file (fork_ids.c), as the
# installed command finds its own (one scenario in 7 hung without).
make -s -C Tests/c "$SB_ROOT/.build/c-tests/test_fork_child"
LD_LIBRARY_PATH="$prefix/lib" "$SB_ROOT/.build/c-tests/test_fork_child" > /dev/null \
  || sb_die "a child of fork hung or failed with the installed library (test_fork_child)"
# A FIFO where the debug file is looked for: never opened for reading (the
# fork would wait for a writer for ever, and every other fork with it).
mv "$debug" "$tmp/debug.kept"
mkfifo "$debug"
status=0
SB_FORK_ROUNDS=3 LD_LIBRARY_PATH="$prefix/lib" timeout 60 "$SB_ROOT/.build/c-tests/test_fork_child" > /dev/null 2>&1 || status=$?
[ "$status" != 124 ] || sb_die "a FIFO in place of the debug file blocked fork (test_fork_child timed out)"
rm "$debug"
mv "$tmp/debug.kept" "$debug"
# The debug file rewritten in place (cp over it, truncated then whole) while
# 100 processes make their first fork: the library reads it with pread,
# never mapped, so none dies of SIGBUS (one did when it was mapped).
cp "$debug" "$tmp/debug.whole"
head -c 1000000 "$debug" > "$tmp/debug.cut"
(while :; do cp "$tmp/debug.cut" "$debug"; cp "$tmp/debug.whole" "$debug"; done) &
rewriter=$!
died=0
for run in $(seq 100); do
  status=0
  SB_FORK_ROUNDS=1 LD_LIBRARY_PATH="$prefix/lib" timeout 60 "$SB_ROOT/.build/c-tests/test_fork_child" > /dev/null 2>&1 || status=$?
  [ "$status" -le 1 ] || { died=$((died + 1)); echo "run $run: exit $status"; }
done
kill "$rewriter"
wait "$rewriter" 2> /dev/null || true
cp "$tmp/debug.whole" "$debug"
[ "$died" = 0 ] || sb_die "$died of 100 processes died or hung while the debug file was rewritten in place"
examples="$prefix/share/switchboard/examples"
for run in $(seq 20); do
  "$prefix/bin/switchboard" run --plugin "$examples/module_a.so" --targets "$examples/targets" --timeout 5 --grace 1 \
    --filter 'steps' Tests/cli/scenarios/async.lua > "$tmp/async.tap" 2>&1 \
    || { cat "$tmp/async.tap"; sb_die "the installed command's scenario process hung or failed (run $run of 20)"; }
done

echo "installed library: $(stat -L -c %s "$lib") bytes stripped, debug file $(stat -c %s "$debug") bytes" \
  "(DWARF units by version: $(tr '\n' ' ' <<< "$versions")); a gdb session backtraced $frames frames through it," \
  "printed a local and listed its source, with no complaint; valgrind read it, 0 errors; a frame: $frame;" \
  "forked children's threads met on the runtime's locks: 1,000 children of test_fork_child, 20 scenario processes"
