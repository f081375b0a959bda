#!/usr/bin/env bash
# The generated wrappers in the repository, written by `switchboard gen` from
# the contracts of three plugins:
#   examples/c/module_a.c       -> examples/{swift,c,lua}/generated/   (the demos use them)
#   Tests/c/plugins/typed_plugin.c -> Tests/generated/{c,lua}/,
#                                  Tests/SwitchboardTests/Generated/ (the tests use them)
#   examples/porting/c/Target_Cart.c -> examples/porting/{swift,c,lua}/generated/
#                                  (the samples of docs/porting-from-ctmediator.md use them)
#
#   scripts/generate.sh           writes them again
#   scripts/generate.sh --check   fails, with a diff, if a committed copy is stale
#
# The Swift demo's Target_A declares the same contracts in Swift; --check also
# generates Swift wrappers from its catalogue and compares them with the
# committed ones, so the two copies cannot drift apart unnoticed; and it
# generates them from ModuleA.swift's source (--swift-sources, as the
# switchboard-wrappers plugin does), which must give the same file.
#
# Needs scripts/build.sh first (the staged switchboard command, the demo).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

check=false
case "${1:-}" in
  --check) check=true ;;
  "") ;;
  *) sb_die "usage: scripts/generate.sh [--check]" ;;
esac

sb="$SB_ROOT/.build/dist/bin/switchboard"
[ -x "$sb" ] || sb_die "no $sb: run scripts/build.sh first"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

flags="-std=c99 -Wall -Wextra -Werror -pedantic -shared -fPIC -I include"
cc $flags examples/c/module_a.c -o "$work/module_a.so"
cc $flags Tests/c/plugins/typed_plugin.c -o "$work/typed_plugin.so"
cc $flags examples/porting/c/Target_Cart.c -o "$work/Target_Cart.so"

# generate PLUGIN LANGUAGE DIR: the wrappers for PLUGIN's targets into DIR,
# or, with --check, into a scratch folder compared with DIR.
stale=0
generate() {
  local plugin=$1 lang=$2 dir=$3 out=$3
  if $check; then out="$work/$dir"; fi
  "$sb" gen --lang "$lang" --plugin "$work/$plugin.so" -o "$out" > /dev/null
  if $check && ! diff -ru "$dir" "$out" > "$work/diff"; then
    echo "stale: $dir (run scripts/generate.sh and commit the result)" >&2
    cat "$work/diff" >&2
    stale=1
  fi
}

generate module_a swift examples/swift/generated
generate module_a c examples/c/generated
generate module_a lua examples/lua/generated
generate typed_plugin swift Tests/SwitchboardTests/Generated
generate typed_plugin c Tests/generated/c
generate typed_plugin lua Tests/generated/lua
generate Target_Cart swift examples/porting/swift/generated
generate Target_Cart c examples/porting/c/generated
generate Target_Cart lua examples/porting/lua/generated

if $check; then
  demo="$SB_ROOT/.build/release/SwitchboardDemo"
  [ -x "$demo" ] || sb_die "no $demo: run scripts/build.sh first"
  "$demo" --catalogue > "$work/swift-demo.json"
  "$sb" gen --lang swift --catalogue "$work/swift-demo.json" --target A -o "$work/swift-demo" > /dev/null
  if ! diff -ru examples/swift/generated "$work/swift-demo" > "$work/diff"; then
    echo "examples/swift/ModuleA.swift's contracts differ from examples/c/module_a.c's:" >&2
    cat "$work/diff" >&2
    stale=1
  fi
  "$sb" gen --lang swift --swift-sources examples/swift --target A -o "$work/swift-source" > /dev/null
  if ! diff -ru examples/swift/generated "$work/swift-source" > "$work/diff"; then
    echo "the wrappers read from examples/swift's sources (--swift-sources) differ from those of its catalogue:" >&2
    cat "$work/diff" >&2
    stale=1
  fi
  [ "$stale" = 0 ] || exit 1
  echo "the generated wrappers match the contracts"
fi
