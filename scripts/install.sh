#!/usr/bin/env bash
# Installs Switchboard into a prefix (default /usr/local):
#
#   PREFIX/lib/libswitchboard.so.1, PREFIX/lib/libswitchboard.so
#   PREFIX/lib/pkgconfig/switchboard.pc
#   PREFIX/include/switchboard.h
#
# so that `cc app.c $(pkg-config --cflags --libs switchboard)` works (add
# PREFIX/lib/pkgconfig to PKG_CONFIG_PATH for a non-standard prefix).
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
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) sb_die "unknown option: $1 (see --help)" ;;
  esac
done

[ "$build" = 1 ] && scripts/build.sh
dist=.build/dist
[ -d "$dist/lib" ] || sb_die "nothing staged in $dist; run scripts/build.sh"
mkdir -p "$prefix"
prefix="$(cd "$prefix" && pwd)"

install -d "$prefix/lib/pkgconfig" "$prefix/include"
for f in "$dist"/lib/libswitchboard.so.*; do install -m 755 "$f" "$prefix/lib/"; done
ln -sfn "$(basename "$(readlink "$dist/lib/libswitchboard.so")")" "$prefix/lib/libswitchboard.so"
install -m 644 "$dist/lib/pkgconfig/switchboard.pc" "$prefix/lib/pkgconfig/"
install -m 644 "$dist/include/switchboard.h" "$prefix/include/"

# A system prefix: let the loader cache know about the new library.
if [ "$(id -u)" = 0 ] && command -v ldconfig >/dev/null && [ "$prefix" = /usr/local ]; then ldconfig; fi

echo "installed into $prefix"
echo "  C:   cc app.c \$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs switchboard)"
