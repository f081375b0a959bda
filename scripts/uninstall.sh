#!/usr/bin/env bash
# Removes what scripts/install.sh installed into a prefix, exactly: the files
# and links its manifest (PREFIX/share/switchboard/install-manifest.txt)
# lists, then the folders the install created, once they are empty. Takes
# --prefix and DESTDIR as install.sh does.
#
#   scripts/uninstall.sh [--prefix DIR]          (default /usr/local)
#   DESTDIR=/tmp/stage scripts/uninstall.sh --prefix /usr
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

prefix=/usr/local
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="${2:?--prefix needs a directory}"; shift 2 ;;
    --prefix=*) prefix="${1#--prefix=}"; shift ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) sb_die "unknown option: $1 (see --help)" ;;
  esac
done
destdir="${DESTDIR:-}"
prefix="$(realpath -m -s "$prefix")"
manifest="$destdir$prefix/share/switchboard/install-manifest.txt"
[ -f "$manifest" ] || sb_die "no install manifest at $manifest: nothing installed there by scripts/install.sh"
list="$(mktemp)"
trap 'rm -f "$list"' EXIT
cp "$manifest" "$list"

# Every line is checked before anything is removed.
while read -r kind path; do
  case "$kind" in
    f|l) [[ "$path" == "$prefix"/?* ]] || sb_die "the manifest names $path, outside $prefix" ;;
    # A folder the install made: in the prefix, the prefix, or above it.
    d) [[ "$prefix/" == "$path"/* || "$path" == "$prefix"/* ]] \
         || sb_die "the manifest names a folder $path, neither in $prefix nor above it" ;;
    *) sb_die "unreadable manifest line: $kind $path" ;;
  esac
done < "$list"
removed=0
while read -r kind path; do
  [ "$kind" = d ] && continue
  if [ -e "$destdir$path" ] || [ -L "$destdir$path" ]; then rm -f "$destdir$path"; removed=$((removed + 1)); fi
done < "$list"
# Deepest folders first; one that holds something not ours stays.
grep '^d ' "$list" | cut -d' ' -f2- | sort -r | while read -r dir; do
  rmdir "$destdir$dir" 2>/dev/null || true
done
echo "removed $removed files and links from $destdir$prefix"
