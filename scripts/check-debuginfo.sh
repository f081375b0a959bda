#!/usr/bin/env bash
# The installed library, as debugging tools see it: libswitchboard.so.1 (a
# link to libswitchboard.so.VERSION) stripped, its debug info in
# lib/.debug/libswitchboard.so.VERSION.debug linked by .gnu_debuglink, all of it
# DWARF 4 (Debian 12's valgrind 3.19 gives up on DWARF 5); gdb finds the
# library's source lines; a C program that links the installed library runs
# under valgrind memcheck with the installed suppressions: 0 errors (leaks
# included), with the library's functions and source lines in its stacks.
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

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cc -std=c99 -Wall -Wextra -Werror -pedantic -g examples/c/hello.c \
  $(pkg-config --cflags --libs switchboard) -Wl,-rpath,"$prefix/lib" -o "$tmp/hello"
# Default leak kinds count as errors (definite and possible), all are shown so
# the stacks through the library can be read.
status=0
valgrind --leak-check=full --show-leak-kinds=all --error-exitcode=99 \
  --suppressions="$prefix/share/switchboard/valgrind.supp" "$tmp/hello" > "$tmp/out" 2> "$tmp/valgrind.log" || status=$?
grep -q 'greeter said: Hello, Ada!' "$tmp/out" || { cat "$tmp/valgrind.log"; sb_die "hello did not run under valgrind"; }
[ "$status" = 0 ] && grep -q 'ERROR SUMMARY: 0 errors' "$tmp/valgrind.log" \
  || { cat "$tmp/valgrind.log"; sb_die "valgrind found errors (exit $status) with the installed suppressions"; }
# A frame in the library with its function and Swift source line: read from the debug file.
frame=$(grep -Em1 'by 0x[0-9A-F]+: sb_[a-z_]+ \([A-Za-z_+]+\.swift:[0-9]+\)' "$tmp/valgrind.log" | sed -E "s/.*: (sb_)/\\1/") \
  || { cat "$tmp/valgrind.log"; sb_die "valgrind showed no function and source line of the library"; }

echo "installed library: $(stat -L -c %s "$lib") bytes stripped, debug file $(stat -c %s "$debug") bytes" \
  "(DWARF units by version: $(tr '\n' ' ' <<< "$versions")); gdb and valgrind read it, 0 errors; a frame: $frame"
