#!/usr/bin/env bash
# Installs into a temporary prefix, builds the C demo there the way a user
# would (pkg-config, a plugin that links nothing), and runs it with a clean
# environment: no Swift library directory on any search path. Then requires
# the installed Lua module from stock lua5.4, and runs the installed command
# over the installed example scenarios.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
scripts/install.sh --prefix "$prefix" --no-build > /dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
flags="-std=c99 -Wall -Wextra -Werror -pedantic"
cc $flags examples/c/main.c $(pkg-config --cflags --libs switchboard) -o "$prefix/demo"
cc $flags -D_POSIX_C_SOURCE=200809L -shared -fPIC examples/c/module_a.c $(pkg-config --cflags switchboard) -o "$prefix/module_a.so"

if ldd "$prefix/demo" | grep -i swift; then sb_die "the installed program needs Swift libraries"; fi
output=$(env -i PATH=/usr/bin:/bin "$prefix/demo" "$prefix/module_a.so")
grep -q 'NotFoundViewController' <<< "$output" || sb_die "the demo did not run through: $output"
# Its last step: a native action opened from a URL, refused, the completion told.
grep -q 'completion got {"error":.*"code":"EREJECTED"}' <<< "$output" || sb_die "the demo's URL steps did not run: $output"
version=$(env -i PATH=/usr/bin:/bin LUA_CPATH="$prefix/lib/lua/5.4/?.so;;" \
  lua5.4 -e 'print(require("switchboard").version)')
[ "$version" = "$(sed -nE 's/^#define SB_VERSION_STRING "([^"]+)"/\1/p' include/switchboard.h)" ] \
  || sb_die "lua5.4 could not require the installed module (got '$version')"
# The command, from the installed examples, as its --help shows it.
tap=$(cd "$prefix/share/switchboard/examples" && env -i PATH=/usr/bin:/bin "$prefix/bin/switchboard" run \
  --plugin ./module_a.so --targets targets scenarios/*.lua 2>/dev/null) \
  || sb_die "the installed switchboard command did not pass the installed scenarios: $tap"
grep -q '^# [1-9][0-9]* passed, 0 failed' <<< "$tap" || sb_die "no summary line from the installed command: $tap"
if ldd "$prefix/bin/switchboard" | grep -i swift; then sb_die "the installed command needs Swift libraries"; fi

echo "installed into a temporary prefix; a C program built with pkg-config ran with no Swift libraries" \
  "on any path; lua5.4 required the module (version $version); bin/switchboard ran the installed scenarios"
