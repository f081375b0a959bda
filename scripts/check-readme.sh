#!/usr/bin/env bash
# Keeps the README's examples true: each is a file in examples/ that is
# built and run here, and the README must show it verbatim. (The Swift
# example is checked by Tests/SwitchboardTests/ReadmeExampleTests.swift.)
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/examples.sh"
cd "$SB_ROOT"

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
export PKG_CONFIG_PATH="$SB_ROOT/.build/dist/lib/pkgconfig"

sb_check_shown README.md examples/c/hello.c
cc -std=c99 -Wall -Wextra -Werror -pedantic examples/c/hello.c $(pkg-config --cflags --libs switchboard) -o "$out/hello"
"$out/hello" | grep -q 'greeter said: Hello, Ada!' || sb_die "examples/c/hello.c did not print its greeting"
"$out/hello" | grep -q 'no such target: no target named "Nobody"' || sb_die "examples/c/hello.c did not print the error"
sb_check_shown README.md examples/lua/hello.lua
lua_out=$(LUA_CPATH="$SB_ROOT/.build/dist/lib/lua/5.4/?.so;;" lua5.4 examples/lua/hello.lua)
grep -q 'greeter said: Hello, Ada!' <<< "$lua_out" || sb_die "examples/lua/hello.lua did not greet: $lua_out"
grep -q 'ENOTARGET' <<< "$lua_out" || sb_die "examples/lua/hello.lua did not show the failure"
echo "README examples match their files and run"
