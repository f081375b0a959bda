#!/usr/bin/env bash
# The Lua binding as a Lua user installs it: libswitchboard installed into a
# prefix (scripts/install.sh), then `luarocks make` into temporary trees (the
# builtin backend compiles the C glue against the installed header and
# library), and stock lua5.4 requires the module from each tree:
#
# - from the installed prefix alone: docs/lua.md's commands as they are, on
#   a copy of PREFIX/share/switchboard/lua, with no checkout in sight;
# - from this repository's root, with rockspecs/switchboard-scm-1.rockspec.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/examples.sh"
cd "$SB_ROOT"
command -v luarocks >/dev/null || sb_die "luarocks is not installed (scripts/deps.sh installs it)"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
scripts/install.sh --prefix "$tmp/prefix" --no-build > /dev/null
want_version=$(sed -nE 's/^#define SB_VERSION_STRING "([^"]+)"/\1/p' include/switchboard.h)

# docs/lua.md's lines, run in an empty folder with only the prefix's files
# (PREFIX and TREE are the variables the doc names).
mkdir "$tmp/user"
got=$(cd "$tmp/user" && env -i PATH=/usr/bin:/bin HOME="$tmp/user" PREFIX="$tmp/prefix" TREE="$tmp/user-tree" \
  bash -e <(sb_doc_block "$SB_ROOT/docs/lua.md" installed) 2> "$tmp/installed.log") || { cat "$tmp/installed.log"; sb_die "docs/lua.md's LuaRocks lines failed"; }
[ "$(tail -n 1 <<< "$got")" = "$want_version" ] || sb_die "docs/lua.md's LuaRocks lines printed: $got"
[ -f "$tmp/user-tree/lib/lua/5.4/switchboard.so" ] || sb_die "luarocks make from the installed prefix installed no module into the tree"
if grep -rq "$SB_ROOT" "$tmp/user-tree/lib/lua/5.4/switchboard.so"; then sb_die "the rock built from the prefix names this checkout"; fi
# A copy of what the rockspec builds from, so no object file lands in Sources/.
mkdir -p "$tmp/src/Sources"
cp -R rockspecs "$tmp/src/"
cp -R Sources/SwitchboardLua Sources/CSwitchboard "$tmp/src/Sources/"
(cd "$tmp/src" && luarocks --lua-version=5.4 make --tree "$tmp/tree" \
  rockspecs/switchboard-scm-1.rockspec SWITCHBOARD_DIR="$tmp/prefix") > "$tmp/luarocks.log" 2>&1 \
  || { cat "$tmp/luarocks.log"; sb_die "luarocks make failed"; }
module="$tmp/tree/lib/lua/5.4/switchboard.so"
[ -f "$module" ] || sb_die "luarocks installed no $module"
luarocks --lua-version=5.4 --tree "$tmp/tree" list --porcelain | grep -q '^switchboard	scm-1' \
  || sb_die "luarocks does not list switchboard scm-1 in the tree"

# Both rocks call the library's faces' entry points (switchboard_sys.h, from
# the glue's folder, never PREFIX/include) under their private version.
for built in "$tmp/user-tree/lib/lua/5.4/switchboard.so" "$module"; do
  nm -D --undefined-only "$built" | awk '$NF == "sb__action_enter@SWITCHBOARD_PRIVATE" {found = 1} END {exit !found}' \
    || sb_die "$built does not call sb__action_enter@SWITCHBOARD_PRIVATE"
done

# Only the tree's paths (what `luarocks path` prints), a clean environment.
paths=$(luarocks --lua-version=5.4 --tree "$tmp/tree" path --lr-cpath)
got=$(env -i PATH=/usr/bin:/bin LUA_CPATH="$paths;;" lua5.4 -e '
  local sb = require "switchboard"
  print(package.searchpath("switchboard", package.cpath) .. " " .. sb.version)
  sb.target("Echo", { back = function(p) return p.text end })
  print(sb.perform("Echo", "back", { text = "through the rock" }))')
[ "$got" = "$module $want_version
through the rock" ] || sb_die "lua5.4 did not require the rock's module from the tree: $got"
echo "luarocks make built the binding against the installed library, from the installed prefix's copy (docs/lua.md's lines)" \
  "and from this repository; lua5.4 required it from each tree and called through it"
