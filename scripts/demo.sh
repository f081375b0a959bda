#!/usr/bin/env bash
# The main job: builds everything in release mode and runs the CTMediator
# demo from each face: Swift, C, Lua; then scenario scripts through the
# switchboard command.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

sb_step "Building (release)"
scripts/deps.sh
scripts/build.sh

sb_step "Typed wrappers for module A in Swift, C and Lua, generated from its contracts (switchboard gen)"
scripts/generate.sh --check
.build/dist/bin/switchboard gen --lang c --plugin "$(pwd)/.build/dist/share/switchboard/examples/module_a.so" \
  -o .build/examples/generated
sed -n '/^\/\* A.showAlert/,/) {$/p' .build/examples/generated/sb_a.h

sb_step "The CTMediator demo in Swift (examples/swift)"
.build/release/SwitchboardDemo

sb_step "The CTMediator demo in C (examples/c): main.c + the module_a plugin"
out=.build/examples/c
mkdir -p "$out"
export PKG_CONFIG_PATH="$SB_ROOT/.build/dist/lib/pkgconfig"
flags="-std=c99 -Wall -Wextra -Werror -pedantic"
cc $flags examples/c/main.c $(pkg-config --cflags --libs switchboard) -o "$out/demo"
# The plugin links nothing of Switchboard: the demo program provides sb_*.
cc $flags -shared -fPIC examples/c/module_a.c $(pkg-config --cflags switchboard) -o "$out/module_a.so"
"$out/demo" "$out/module_a.so"

sb_step "The CTMediator demo in Lua (examples/lua): lua5.4 + the same module_a plugin"
LUA_CPATH="$SB_ROOT/.build/dist/lib/lua/5.4/?.so;;" lua5.4 examples/lua/demo.lua "$out/module_a.so"

sb_step "Scenario scripts (examples/scenarios) run by the switchboard command over module_a and Lua targets"
.build/dist/bin/switchboard run --plugin "$out/module_a.so" \
  --targets examples/lua/targets --targets examples/scenarios/targets \
  --junit .build/examples/scenarios.xml examples/scenarios/*.lua
