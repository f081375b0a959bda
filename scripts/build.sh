#!/usr/bin/env bash
# Builds everything in release mode and stages what is shipped in .build/dist:
#
#   .build/dist/lib/libswitchboard.so.1        (static Swift runtime inside)
#   .build/dist/lib/libswitchboard.so -> libswitchboard.so.1
#   .build/dist/lib/pkgconfig/switchboard.pc
#   .build/dist/include/switchboard.h
#
# Then `PKG_CONFIG_PATH=.build/dist/lib/pkgconfig cc app.c $(pkg-config
# --cflags --libs switchboard)` builds a C program against it.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

# -static-stdlib: the library (and the executables) carry their own Swift
# runtime, so they run where no Swift toolchain is installed.
swift build -c release -Xswiftc -static-stdlib

dist=.build/dist
version=$(sed -nE 's/^#define SB_VERSION_STRING "([^"]+)"/\1/p' include/switchboard.h)
abi=$(sed -nE 's/^#define SB_ABI_VERSION ([0-9]+)/\1/p' include/switchboard.h)

rm -rf "$dist"
mkdir -p "$dist/lib/pkgconfig" "$dist/include" "$dist/bin"
cp .build/release/libswitchboard.so "$dist/lib/libswitchboard.so.$abi"
ln -s "libswitchboard.so.$abi" "$dist/lib/libswitchboard.so"
cp include/switchboard.h "$dist/include/"
sed "s/@VERSION@/$version/" pkgconfig/switchboard.pc.in > "$dist/lib/pkgconfig/switchboard.pc"
echo "staged $dist (switchboard $version, ABI $abi)"
