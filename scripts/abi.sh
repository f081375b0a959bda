#!/usr/bin/env bash
# The C ABI of libswitchboard.so against the committed baseline
# abi/libswitchboard.abi (libabigail: abidw, abidiff). Run scripts/build.sh first.
#
#   scripts/abi.sh [check]              fails when the ABI differs from the baseline
#   scripts/abi.sh update [--compatible] rewrites the baseline (a deliberate step)
#   scripts/abi.sh update --initial     records it without comparing (1.0.0 only)
#
# What is compared. The exported functions of the staged library
# (.build/dist/lib) with the C types of their declarations in
# include/switchboard.h, and every type the header defines (plugins'
# sb_target_def too): functions, parameters, returns, struct layouts,
# enumerators, symbol versions, the SONAME. The library's own debug info
# cannot give those types: most sb_ functions are Swift @_cdecl thunks
# described in Swift's terms, and abidw 2.2 aborts on the library's DWARF
# unless told --exported-interfaces-only (then 2 of its 114 functions have C
# types). So the ABI is read from a probe: a shared object built from the
# header alone (scripts/lib/abi-probe.py: every declared function defined
# with the header's prototype), linked with the library's version script and
# SONAME. The probe's exported symbols must equal the library's, name and
# version (checked here); scripts/check-header.sh proves the Swift exports
# have the header's prototypes. The baseline has no paths or line numbers,
# so it is the same from any clone.
#
# check: any difference fails, additions included. Additions are what a minor
# release may bring, but they are part of the promise from then on, so they
# enter the baseline by a reviewed commit (scripts/abi.sh update), never by
# drifting. The message says which kind of change abidiff found.
#
# update: writes abi/libswitchboard.abi and abi/abi-version (the
# SB_ABI_VERSION it was recorded for). It refuses an incompatible change
# (something removed, or changed) unless SB_ABI_VERSION in switchboard.h
# differs from abi/abi-version: breaking the ABI means bumping it (and with
# it the SONAME). Some changes abidiff counts as "changed" are compatible by
# the 1.x rules (an enumerator appended with a new number, a field appended
# to a versioned struct the library reads by its version): after checking
# the report, say so with --compatible. Something removed is never
# compatible, except functions no release had: a version node after the
# header's release (SWITCHBOARD_1.1 while SB_VERSION_MINOR is 0) is still
# open, and update accepts withdrawing its functions (check still fails
# until the baseline records it).
#
# --initial skips the comparison: for the baseline that defines ABI 1 at
# 1.0.0 (the 0.x series promised nothing), never after a release.
#
# After changing the header on purpose (from a fresh clone too):
#   scripts/build.sh && scripts/abi.sh update && git add abi && git commit
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

baseline=abi/libswitchboard.abi
recorded_version_file=abi/abi-version
# abidiff's exit status bits (abidiff(1)).
ABIDIFF_ERROR=1 ABIDIFF_USAGE_ERROR=2 ABIDIFF_ABI_CHANGE=4 ABIDIFF_ABI_INCOMPATIBLE_CHANGE=8

command=check compatible=0 initial=0
while [ $# -gt 0 ]; do
  case "$1" in
    check|update) command="$1" ;;
    --compatible) compatible=1 ;;
    --initial) initial=1 ;;
    -h|--help) sed -n '2,47p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) sb_die "unknown argument $1 (see --help)" ;;
  esac
  shift
done
[ "$compatible$initial" = 00 ] || [ "$command" = update ] || sb_die "--compatible and --initial go with update"
for tool in abidw abidiff gcc nm python3; do
  command -v "$tool" >/dev/null || sb_die "$tool is missing (scripts/deps.sh installs abigail-tools, gcc, binutils)"
done

abi=$(sed -nE 's/^#define SB_ABI_VERSION ([0-9]+)/\1/p' include/switchboard.h)
[ -n "$abi" ] || sb_die "no SB_ABI_VERSION in include/switchboard.h"
lib=".build/dist/lib/libswitchboard.so.$abi"
[ -e "$lib" ] || sb_die "$lib is missing; run scripts/build.sh"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The probe, built in a folder of its own so no path of this clone matters.
mkdir "$tmp/macros"
scripts/lib/abi-probe.py include/switchboard.h "$tmp/macros/sb_abi_macros.h" > "$tmp/probe.c"
soname=$(readelf -d "$lib" | sed -nE 's/.*Library soname: \[(.*)\]/\1/p')
(cd "$tmp" && gcc -std=c2x -g -O0 -fPIC -shared -Wall -Werror -Wno-unused-parameter \
  -I "$SB_ROOT/include" -I macros probe.c -o probe.so \
  -Wl,--version-script="$SB_ROOT/Sources/SwitchboardLibrary/exports.map" -Wl,-soname,"$soname") \
  || sb_die "the ABI probe built from include/switchboard.h did not compile"

# Function symbols with their versions (sb_x@@SWITCHBOARD_1), both sides.
# The faces' entry points (switchboard_sys.h, version SWITCHBOARD_PRIVATE)
# promise nothing beyond their release and are not recorded;
# scripts/check-exports.sh checks them.
functions_of() { nm -D --defined-only --extern-only "$1" | awk '$2 ~ /^[TtWw]$/ && $3 !~ /@@SWITCHBOARD_PRIVATE$/ { print $3 }' | sort; }
functions_of "$lib" > "$tmp/library.syms"
functions_of "$tmp/probe.so" > "$tmp/probe.syms"
cmp -s "$tmp/library.syms" "$tmp/probe.syms" || {
  diff "$tmp/library.syms" "$tmp/probe.syms" | sed -n 's/^</  library only: /p; s/^>/  header only:  /p' >&2
  sb_die "$lib does not export exactly the functions of include/switchboard.h (stale build? run scripts/build.sh)"
}

abidw --load-all-types --headers-dir "$SB_ROOT/include" --headers-dir "$tmp/macros" --drop-private-types \
  --no-corpus-path --no-comp-dir-path --no-show-locs --no-elf-needed --type-id-style hash \
  --out-file "$tmp/current.abi" "$tmp/probe.so" || sb_die "abidw failed on the ABI probe"
functions=$(grep -c '<function-decl ' "$tmp/current.abi" || true)
[ "$functions" = "$(wc -l < "$tmp/library.syms")" ] \
  || sb_die "abidw described $functions functions, the library exports $(wc -l < "$tmp/library.syms")"

# compare: abidiff BASELINE CURRENT; sets status and writes the report.
compare() {
  status=0
  abidiff --non-reachable-types --no-show-locs "$baseline" "$tmp/current.abi" > "$tmp/report" 2>&1 || status=$?
  if (( status & (ABIDIFF_ERROR | ABIDIFF_USAGE_ERROR) )); then
    cat "$tmp/report" >&2
    sb_die "abidiff could not compare (exit $status)"
  fi
}
# What kind of difference the report shows: none, added (only additions),
# withdrawn (functions gone that no release had, maybe with additions),
# changed (a type or a signature; abidiff cannot tell an append the 1.x rules
# allow from a break, and flags every change of a type no function takes as
# incompatible), removed (a function, symbol, type, enumerator or field gone,
# or another SONAME).
classify() {
  if [ "$status" = 0 ]; then kind=none; return; fi
  local withdrawn=0
  if grep -Eiq '[1-9][0-9]* removed|SONAME changed|deletion' "$tmp/report"; then
    only_unreleased_removed || { kind=removed; return; }
    withdrawn=1 # abidiff's exit says incompatible for any removal: only its report counts now
  fi
  if grep -Eiq '[1-9][0-9]* changed' "$tmp/report" \
     || { [ "$withdrawn" = 0 ] && (( status & ABIDIFF_ABI_INCOMPATIBLE_CHANGE )); }; then kind=changed
  elif [ "$withdrawn" = 1 ]; then kind=withdrawn
  else kind=added
  fi
}
# Whether all that the report removes is functions of a version after this
# release (SWITCHBOARD_1.1 while switchboard.h says 1.0.x): added since the
# last release and withdrawn before the next, no program was ever built
# against a release that had them. Anything else removed is a break.
release_major=$(sed -nE 's/^#define SB_VERSION_MAJOR ([0-9]+)/\1/p' include/switchboard.h)
release_minor=$(sed -nE 's/^#define SB_VERSION_MINOR ([0-9]+)/\1/p' include/switchboard.h)
[ -n "$release_major" ] && [ -n "$release_minor" ] || sb_die "no SB_VERSION_MAJOR or SB_VERSION_MINOR in include/switchboard.h"
only_unreleased_removed() {
  local lines total versions version major minor
  # The summary line must be the one removal (the list's title aside).
  lines=$(grep -Ei '[1-9][0-9]* removed|SONAME changed|deletion' "$tmp/report" | grep -Ev '^ *[0-9]+ Removed functions?:$')
  [ "$(wc -l <<< "$lines")" = 1 ] || return 1
  total=$(sed -nE 's/^ *Functions changes summary: ([0-9]+) Removed,.*/\1/p' <<< "$lines")
  [ -n "$total" ] || return 1
  versions=$(sed -nE "s/^ *\[D\] 'function .*\{sb_[a-z_0-9]+@@SWITCHBOARD_([0-9.]+)\}\$/\1/p" "$tmp/report")
  [ -n "$versions" ] && [ "$(wc -l <<< "$versions")" = "$total" ] || return 1
  for version in $versions; do
    major=${version%%.*} minor=0
    [ "$version" = "$major" ] || minor=${version#*.}
    [[ "$major.$minor" =~ ^[0-9]+\.[0-9]+$ ]] || return 1
    (( major > release_major || (major == release_major && minor > release_minor) )) || return 1
  done
}
summary() { echo "$functions functions, $(grep -cE '<(class|enum|union)-decl ' "$tmp/current.abi") structs and enums"; }

case "$command" in
check)
  [ -f "$baseline" ] || sb_die "no $baseline yet: run scripts/abi.sh update and commit abi/"
  recorded=$(cat "$recorded_version_file" 2>/dev/null || true)
  compare
  if [ "$status" = 0 ]; then
    [ "$recorded" = "$abi" ] || sb_die "SB_ABI_VERSION is $abi but $baseline was recorded for ${recorded:-nothing} ($recorded_version_file): run scripts/abi.sh update"
    echo "ABI $abi unchanged against $baseline: $(summary) (SONAME $soname)"
    exit 0
  fi
  echo "abidiff $baseline <built library>:"
  sed 's/^/  /' "$tmp/report"
  classify
  case "$kind" in
    removed) what="INCOMPATIBLE: something programs or plugins use was removed" ;;
    changed) what="a type or a signature changed: incompatible unless it only appends to a versioned struct or an enum" ;;
    withdrawn) what="functions that no release had were withdrawn (their version is after $release_major.$release_minor): compatible, but the baseline must record it" ;;
    *) what="additions only: compatible, but the baseline must record them" ;;
  esac
  echo >&2
  echo "The ABI differs from $baseline: $what (abidiff exit $status)." >&2
  echo "If it is meant: scripts/abi.sh update (see scripts/abi.sh --help), and commit abi/." >&2
  exit 1
  ;;
update)
  mkdir -p abi
  if [ -f "$baseline" ] && [ "$initial" = 0 ]; then
    recorded=$(cat "$recorded_version_file" 2>/dev/null || true)
    compare
    if [ "$status" != 0 ]; then
      cat "$tmp/report"
      classify
      breaking=""
      case "$kind" in
        removed) breaking="removes a function, a symbol or a type" ;;
        changed) [ "$compatible" = 1 ] || breaking="changes types or signatures (if it only appends what the 1.x rules allow, rerun with --compatible)" ;;
      esac
      if [ -n "$breaking" ] && [ "$recorded" = "$abi" ]; then
        sb_die "the new ABI $breaking, and SB_ABI_VERSION is still $abi: bump SB_ABI_VERSION in include/switchboard.h (the SONAME follows) or undo the change"
      fi
    fi
  fi
  cp "$tmp/current.abi" "$baseline"
  echo "$abi" > "$recorded_version_file"
  echo "wrote $baseline ($(summary), SONAME $soname) and $recorded_version_file ($abi); commit abi/"
  ;;
esac
