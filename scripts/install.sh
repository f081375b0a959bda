#!/usr/bin/env bash
# Installs Switchboard into a prefix (default /usr/local):
#
#   PREFIX/lib/libswitchboard.so.1, PREFIX/lib/libswitchboard.so
#   PREFIX/lib/lua/5.4/switchboard.so        the Lua module (require "switchboard")
#   PREFIX/lib/libswitchboard_lua.so.1       the same, for C hosts embedding Lua
#   PREFIX/lib/pkgconfig/switchboard.pc, switchboard-lua.pc
#   PREFIX/include/switchboard.h, switchboard_lua.h
#   PREFIX/bin/switchboard                   the command (runs scenario scripts)
#   PREFIX/share/switchboard/examples/       scenarios, Lua targets, module_a.so
#
# so that `cc app.c $(pkg-config --cflags --libs switchboard)` works (add
# PREFIX/lib/pkgconfig to PKG_CONFIG_PATH for a non-standard prefix), and
# lua5.4 finds the module (/usr/local is on its default LUA_CPATH; otherwise
# the LUA_CPATH to use is printed).
#
#   scripts/install.sh [--prefix DIR] [--no-build]
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

prefix=/usr/local
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="${2:?--prefix needs a directory}"; shift 2 ;;
    --prefix=*) prefix="${1#--prefix=}"; shift ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) sb_die "unknown option: $1 (see --help)" ;;
  esac
done

[ "$build" = 1 ] && scripts/build.sh
dist=.build/dist
[ -d "$dist/lib" ] || sb_die "nothing staged in $dist; run scripts/build.sh"
mkdir -p "$prefix"
prefix="$(cd "$prefix" && pwd)"

install -d "$prefix/lib/pkgconfig" "$prefix/lib/lua/5.4" "$prefix/include"
for lib in libswitchboard libswitchboard_lua; do
  for f in "$dist/lib/$lib".so.*; do install -m 755 "$f" "$prefix/lib/"; done
  ln -sfn "$(basename "$(readlink "$dist/lib/$lib.so")")" "$prefix/lib/$lib.so"
done
install -m 755 "$dist/lib/lua/5.4/switchboard.so" "$prefix/lib/lua/5.4/"
install -m 644 "$dist"/lib/pkgconfig/*.pc "$prefix/lib/pkgconfig/"
install -m 644 "$dist"/include/*.h "$prefix/include/"
install -d "$prefix/bin" "$prefix/share/switchboard"
install -m 755 "$dist/bin/switchboard" "$prefix/bin/"
rm -rf "$prefix/share/switchboard/examples"
cp -R "$dist/share/switchboard/examples" "$prefix/share/switchboard/"

# A system prefix: let the loader cache know about the new library.
if [ "$(id -u)" = 0 ] && command -v ldconfig >/dev/null && [ "$prefix" = /usr/local ]; then ldconfig; fi

echo "installed into $prefix"
echo "  Command: $prefix/bin/switchboard --help"
echo "  C:   cc app.c \$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs switchboard)"
if [ "$prefix" = /usr/local ]; then
  echo "  Lua: lua5.4 -e 'print(require(\"switchboard\").version)'"
else
  echo "  Lua: LUA_CPATH='$prefix/lib/lua/5.4/?.so;;' lua5.4 -e 'print(require(\"switchboard\").version)'"
fi
