#!/usr/bin/env bash
# Checks the shipped library (scripts/build.sh first):
#  - its exported functions are exactly the functions of switchboard.h,
#    both directions (as jansson's check-exports does);
#  - its SONAME carries SB_ABI_VERSION; the file is libswitchboard.so.VERSION
#    (SB_VERSION_STRING), reached by the links .so.ABI and .so;
#  - it needs no Swift library at run time (ldd lists only system libraries);
#  - stripped, it is at most 8 MiB.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

abi=$(sed -nE 's/^#define SB_ABI_VERSION ([0-9]+)/\1/p' include/switchboard.h)
lib=".build/dist/lib/libswitchboard.so.$abi"
[ -f "$lib" ] || sb_die "$lib is missing; run scripts/build.sh"

declared=$(grep -E '^SB_API' include/switchboard.h | grep -oE 'sb_[a-z_0-9]+\(' | tr -d '(' | sort)
exported=$(nm -D --defined-only --extern-only "$lib" | awk '$2 ~ /^[TtWw]$/ {sub(/@.*/, "", $3); print $3}' | sort)
others=$(nm -D --defined-only --extern-only "$lib" | awk '$2 !~ /^[TtWwA]$/ {print $3}')
diff <(echo "$declared") <(echo "$exported") > /dev/null || {
  echo "header only:   $(comm -23 <(echo "$declared") <(echo "$exported") | tr '\n' ' ')"
  echo "library only:  $(comm -13 <(echo "$declared") <(echo "$exported") | tr '\n' ' ')"
  sb_die "exported functions differ from switchboard.h"
}
[ -z "$others" ] || sb_die "exported data symbols: $others"

soname=$(readelf -d "$lib" | sed -nE 's/.*Library soname: \[(.*)\]/\1/p')
[ "$soname" = "libswitchboard.so.$abi" ] || sb_die "SONAME is '$soname', expected libswitchboard.so.$abi"
version=$(sed -nE 's/^#define SB_VERSION_STRING "([^"]+)"/\1/p' include/switchboard.h)
for link in "libswitchboard.so.$abi libswitchboard.so.$version" "libswitchboard.so libswitchboard.so.$abi"; do
  set -- $link
  [ -L ".build/dist/lib/$1" ] && [ "$(readlink ".build/dist/lib/$1")" = "$2" ] || sb_die ".build/dist/lib/$1 is not a link to $2"
done
[ -f ".build/dist/lib/libswitchboard.so.$version" ] && [ ! -L ".build/dist/lib/libswitchboard.so.$version" ] \
  || sb_die ".build/dist/lib/libswitchboard.so.$version is not the library file"

needed=$(ldd "$lib" | awk '{print $1}' | grep -vE '^(linux-vdso\.so|/lib64/ld-linux|libc\.so|libm\.so|libstdc\+\+\.so|libgcc_s\.so|libdl\.so|libpthread\.so|librt\.so)' || true)
[ -z "$needed" ] || sb_die "libswitchboard needs non-system libraries: $needed"

size=$(stat -L -c %s "$lib")
tmp=$(mktemp)
strip -o "$tmp" "$lib"
stripped=$(stat -c %s "$tmp")
rm -f "$tmp"
# Issue 23's budget: 8 MiB stripped. Sizes repeat exactly for one toolchain,
# so this is a check, not a measurement. What it buys: no swift-crypto, no
# Foundation, no string-processing library in the C library.
budget=$((8 * 1024 * 1024))
[ "$stripped" -le "$budget" ] || sb_die "libswitchboard.so.$abi is $((stripped / 1024)) KiB stripped, over its budget of" \
  "$((budget / 1024)) KiB: check what the last change linked in (nm --size-sort -S)"
echo "libswitchboard.so.$abi: $(echo "$exported" | wc -l) exported functions = switchboard.h;" \
  "SONAME $soname, file libswitchboard.so.$version; needs only system libraries; $((size / 1024)) KiB ($((stripped / 1024)) KiB stripped)"
