#!/usr/bin/env bash
# Proves include/switchboard.h and the library cannot drift apart:
#
# 1. Compiles one file that includes switchboard.h and the header the Swift
#    compiler emits for the @_cdecl exports (SwitchboardC-Swift.h). The exports
#    are written against switchboard.h's own types (switchboard_internal.h
#    spells them), so a prototype that differs is a "conflicting types" error.
#    The emitted declarations sit in an Objective-C section, so the file is
#    compiled as Objective-C, syntax only, with an empty Foundation.h.
#    switchboard_sys.h (the faces' entry points, never installed) is
#    compiled with them, so its prototypes are checked the same way.
# 2. Checks that every function the header declares is implemented: by a
#    Swift export, or in the library's C files; the same for
#    switchboard_sys.h.
# 3. Checks that `switchboard gen --lang c` knows every sb_ name the installed
#    headers use (Sources/SwitchboardWrappers/HeaderNames.swift), so no generated wrapper can take one.
#
#   scripts/check-header.sh [debug|release]
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

config="${1:-debug}"
emitted=".build/$config/SwitchboardC.build/include/SwitchboardC-Swift.h"
[ -f "$emitted" ] || swift build -c "$config" --target SwitchboardC >/dev/null
[ -f "$emitted" ] || sb_die "no $emitted after building SwitchboardC"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat > "$work/check.m" <<'C'
#include "switchboard.h"
#include "switchboard_internal.h"
#include "switchboard_sys.h"
#include "SwitchboardC-Swift.h"
int main(void) { return 0; }
C
clang -x objective-c -fsyntax-only -Wall -Werror \
  -I include -I Sources/CSwitchboard/include -I "$(dirname "$emitted")" \
  -I scripts/lib/header-check "$work/check.m"

declared=$(grep -oE '^SB_API [^(]*\b(sb_[a-z_0-9]+)\(' include/switchboard.h | grep -oE 'sb_[a-z_0-9]+\($' | tr -d '(' | sort)
swift_defined=$(grep -oE 'SWIFT_EXTERN [^(]*\b(sb_[a-z_0-9]+)\(' "$emitted" | grep -oE 'sb_[a-z_0-9]+\($' | tr -d '(' | sort)
# (sb__ too: a face's entry point may be written in C, as sb__queue_lend is.)
c_defined=$(grep -ohE '^[a-z][^;]*\b(sb__?[a-z][a-z_0-9]*)\([^;]*\{?$' Sources/CSwitchboard/*.c | grep -oE '\bsb__?[a-z][a-z_0-9]*\(' | tr -d '(' | sort -u)
# The faces' entry points (switchboard_sys.h): sb__ names, exported under
# SWITCHBOARD_PRIVATE (scripts/check-exports.sh checks that).
sys_declared=$(grep -oE '^SB_API [^(]*\b(sb__[a-z_0-9]+)\(' Sources/CSwitchboard/include/switchboard_sys.h \
  | grep -oE 'sb__[a-z_0-9]+\($' | tr -d '(' | sort)
missing=$(comm -23 <(sort <(echo "$declared"; echo "$sys_declared")) <(sort -u <(echo "$swift_defined"; echo "$c_defined")))
# Other sb__ names are the library's own: declared in switchboard_internal.h,
# never in an installed header (and never exported: see exports.map).
extra=$(comm -13 <(echo "$declared") <(echo "$swift_defined" | grep -v '^sb__' || true))
internal_declared=$(grep -ohE '\bsb__[a-z_0-9]+\(' Sources/CSwitchboard/include/switchboard_internal.h \
  Sources/CSwitchboard/include/switchboard_sys.h | tr -d '(' | sort -u)
internal_extra=$(comm -13 <(echo "$internal_declared") <(echo "$swift_defined" | grep '^sb__' || true))
[ -z "$missing" ] || sb_die "declared in switchboard.h or switchboard_sys.h but not implemented: $missing"
[ -z "$extra" ] || sb_die "exported by Swift but not declared in switchboard.h: $extra"
[ -z "$internal_extra" ] || sb_die "sb__ functions exported by Swift but not declared in switchboard_internal.h or switchboard_sys.h: $internal_extra"
header_names=$(grep -ohE '\bsb_[a-z_0-9]+\b' include/switchboard.h include/switchboard_lua.h | sort -u)
gen_names=$(grep -oE '"sb_[a-z_0-9]+"' Sources/SwitchboardWrappers/HeaderNames.swift | tr -d '"' | sort -u)
[ "$header_names" = "$gen_names" ] || sb_die "Sources/SwitchboardWrappers/HeaderNames.swift is not the headers' sb_ names:" \
  "$(diff <(echo "$header_names") <(echo "$gen_names") | grep '^[<>]' | tr '\n' ' ')"
echo "switchboard.h and the library agree: $(echo "$declared" | wc -l) functions" \
  "($(echo "$swift_defined" | wc -l) in Swift, $(comm -12 <(echo "$declared") <(echo "$c_defined") | wc -l) in C);" \
  "switchboard_sys.h: $(echo "$sys_declared" | wc -l) face-internal functions"
