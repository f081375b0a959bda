#!/usr/bin/env bash
# Keeps the README's examples true: each is a file in examples/ that is
# built and run here, and the README must show it verbatim. (The Swift
# example is checked by Tests/SwitchboardTests/ReadmeExampleTests.swift.)
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

# The README block of `lang` that follows the marker comment naming `file`.
shown() {
  awk -v marker="<!-- example: $1 -->" '
    $0 == marker { found = 1; next }
    found && /^```/ && !inside { inside = 1; next }
    inside && /^```/ { exit }
    inside { print }' README.md
}

check() {
  local file="$1"
  diff <(shown "$file") "$file" > /dev/null || sb_die "README.md does not show $file as it is (diff them)"
}

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
export PKG_CONFIG_PATH="$SB_ROOT/.build/dist/lib/pkgconfig"

check examples/c/hello.c
cc -std=c99 -Wall -Wextra -Werror -pedantic examples/c/hello.c $(pkg-config --cflags --libs switchboard) -o "$out/hello"
"$out/hello" | grep -q 'greeter said: Hello, Ada!' || sb_die "examples/c/hello.c did not print its greeting"
"$out/hello" | grep -q 'no such target: no target named "Nobody"' || sb_die "examples/c/hello.c did not print the error"
check examples/lua/hello.lua
lua_out=$(LUA_CPATH="$SB_ROOT/.build/dist/lib/lua/5.4/?.so;;" lua5.4 examples/lua/hello.lua)
grep -q 'greeter said: Hello, Ada!' <<< "$lua_out" || sb_die "examples/lua/hello.lua did not greet: $lua_out"
grep -q 'ENOTARGET' <<< "$lua_out" || sb_die "examples/lua/hello.lua did not show the failure"
echo "README examples match their files and run"
