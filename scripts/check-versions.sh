#!/usr/bin/env bash
# The release's number says the same everywhere (issue 45 item 5):
# 1. a tag on HEAD, if any, is SB_VERSION_STRING (switchboard.h), the tag a
#    Swift package's `from:` finds;
# 2. while CHANGELOG.md has an [Unreleased] section, the header names the next
#    release, above the newest one listed; without it, the newest one listed;
# 3. the library's newest symbol version (SWITCHBOARD_MAJOR.MINOR in
#    Sources/SwitchboardLibrary/exports.map) is not newer than the header's
#    MAJOR.MINOR: a library that exports SWITCHBOARD_1.1 is at least 1.1.0.
#
#   scripts/check-versions.sh
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

version=$(sed -nE 's/^#define SB_VERSION_STRING "([^"]+)"/\1/p' include/switchboard.h)
[ -n "$version" ] || sb_die "include/switchboard.h has no SB_VERSION_STRING"

if tag=$(git describe --exact-match --tags HEAD 2>/dev/null); then
  [ "$tag" = "$version" ] || sb_die "HEAD is tagged $tag but switchboard.h says $version"
fi

released=$(sed -nE 's/^## \[([0-9]+\.[0-9]+\.[0-9]+)\].*/\1/p' CHANGELOG.md | head -1)
newest=$(printf '%s\n%s\n' "$released" "$version" | sort -V | tail -1)
if grep -q '^## \[Unreleased\]' CHANGELOG.md; then
  [ "$version" != "$released" ] && [ "$newest" = "$version" ] \
    || sb_die "switchboard.h says $version, CHANGELOG.md's newest release is $released and it has an [Unreleased] section: the header names the next release"
else
  [ "$version" = "$released" ] || sb_die "switchboard.h says $version but CHANGELOG.md's newest release is $released"
fi

node=$(grep -oE '^SWITCHBOARD_[0-9]+(\.[0-9]+)? ' Sources/SwitchboardLibrary/exports.map \
  | sed -E 's/^SWITCHBOARD_//; s/ $//; s/^([0-9]+)$/\1.0/' | sort -V | tail -1)
[ -n "$node" ] || sb_die "Sources/SwitchboardLibrary/exports.map has no SWITCHBOARD_ node"
[ "$(printf '%s\n%s\n' "$node.0" "$version" | sort -V | tail -1)" = "$version" ] \
  || sb_die "the library exports SWITCHBOARD_$node but switchboard.h says $version"
echo "version $version: the header, CHANGELOG.md ($released released) and the symbol versions (newest SWITCHBOARD_$node) agree"
