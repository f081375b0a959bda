#!/usr/bin/env bash
# The Lua face's tests: busted specs under lua5.4, then a stress script
# under valgrind memcheck. Needs scripts/build.sh first (the staged module).
#
#   scripts/lua-tests.sh [specs|valgrind]     (default: both)
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

dist="$SB_ROOT/.build/dist"
out="$SB_ROOT/.build/lua-tests"
[ -f "$dist/lib/lua/5.4/switchboard.so" ] || sb_die "no staged Lua module; run scripts/build.sh"
mkdir -p "$out"

# The specs' C targets: plugins link nothing of Switchboard.
flags="-std=c99 -Wall -Wextra -Werror -pedantic -g -fPIC -shared -I $dist/include"
cc $flags Tests/lua/plugins/lua_test_plugin.c -lpthread -o "$out/lua_test_plugin.so"
cc $flags -D_POSIX_C_SOURCE=200809L Tests/c/plugins/test_plugin.c -o "$out/test_plugin.so"
cc $flags Tests/c/plugins/typed_plugin.c -o "$out/typed_plugin.so"
# C hosts that embed Lua (sb_lua_open), linked the way switchboard-lua.pc
# says: one embeds, one injects faults, one calls while states close, one
# drives states from an epoll loop.
hosts="embed_test fault_host close_host loop_host"
for host in $hosts; do
  cc -std=c99 -Wall -Wextra -Werror -pedantic -g -D_POSIX_C_SOURCE=200809L "Tests/lua/$host.c" \
    $(PKG_CONFIG_PATH="$dist/lib/pkgconfig" pkg-config --cflags --libs switchboard-lua) -lpthread -o "$out/$host"
done

export LUA_CPATH="$dist/lib/lua/5.4/?.so;;"
# Tests/generated/lua: the wrappers scripts/generate.sh writes for typed_plugin.
export LUA_PATH="$SB_ROOT/Tests/lua/?.lua;$SB_ROOT/Tests/generated/lua/?.lua;;"
export SB_TEST_PLUGIN="$out/lua_test_plugin.so"
export SB_TEST_COUNTER="$out/test_plugin.so"
export SB_TEST_TARGETS="$SB_ROOT/Tests/lua/targets"
export SB_TEST_TYPED="$out/typed_plugin.so"
export SB_TEST_HEADER="$dist/include/switchboard.h"

what="${1:-all}"
if [ "$what" = all ] || [ "$what" = specs ]; then
  busted --lua=lua5.4 --output=utfTerminal --pattern=_spec Tests/lua
  for host in $hosts; do "$out/$host"; done
fi
if [ "$what" = all ] || [ "$what" = valgrind ]; then
  # valgrind 3.19 cannot read the library's DWARF 5; a copy without debug
  # sections goes first on the path (the module's RUNPATH comes after it).
  mkdir -p "$out/valgrind-lib"
  strip --strip-debug -o "$out/valgrind-lib/libswitchboard.so.1" "$dist/lib/libswitchboard.so.1"
  LD_LIBRARY_PATH="$out/valgrind-lib" valgrind -q --error-exitcode=99 --leak-check=full \
    --errors-for-leak-kinds=definite --show-leak-kinds=definite \
    --suppressions="$SB_ROOT/Tests/c/valgrind.supp" \
    lua5.4 Tests/lua/stress.lua
  # No plugin pins the library here: lua_close must not unload it.
  LD_LIBRARY_PATH="$out/valgrind-lib" valgrind -q --error-exitcode=99 --leak-check=full \
    --errors-for-leak-kinds=definite --show-leak-kinds=definite \
    --suppressions="$SB_ROOT/Tests/c/valgrind.supp" \
    lua5.4 Tests/lua/unload.lua
  LD_LIBRARY_PATH="$out/valgrind-lib" valgrind -q --error-exitcode=99 --leak-check=full \
    --errors-for-leak-kinds=definite --show-leak-kinds=definite \
    --suppressions="$SB_ROOT/Tests/c/valgrind.supp" "$out/embed_test" > /dev/null
  # The fault host again, for what its failures leave behind; its ledger
  # rows were written by the plain run.
  SB_ROBUSTNESS_LOG= LD_LIBRARY_PATH="$out/valgrind-lib" valgrind -q --error-exitcode=99 --leak-check=full \
    --errors-for-leak-kinds=definite --show-leak-kinds=definite \
    --suppressions="$SB_ROOT/Tests/c/valgrind.supp" "$out/fault_host" > /dev/null
  for host in close_host loop_host; do
    SB_ROBUSTNESS_LOG= LD_LIBRARY_PATH="$out/valgrind-lib" valgrind -q --error-exitcode=99 --leak-check=full \
      --errors-for-leak-kinds=definite --show-leak-kinds=definite \
      --suppressions="$SB_ROOT/Tests/c/valgrind.supp" "$out/$host" > /dev/null
  done
  echo "valgrind: the Lua stress and unload scripts and the C hosts ($hosts) ran with 0 errors, 0 definitely lost"
fi
