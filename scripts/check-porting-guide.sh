#!/usr/bin/env bash
# Keeps docs/porting-from-ctmediator.md true, as check-readme.sh keeps the
# README: every Swift, C and Lua block in the guide is a file under
# examples/porting/ shown verbatim, every such file is shown, and every
# sample program prints exactly the output the guide shows for it.
#
# How samples run (from the repository root):
#   swift/<Name>.swift   .build/release/SwitchboardPorting <Name>
#   c/<name>.c           built against the staged library, run in a folder
#                        that holds the plugins (c/Target_<Name>.c, built as
#                        Target_<Name>.so)
#   lua/<name>.lua       lua5.4 <name>.lua, run in examples/porting/lua (so
#                        Target_<Name>.lua files are on sb.path)
# Files named Target_* are targets, not programs; generated/ holds the
# wrappers scripts/generate.sh writes; swift/main.swift runs the samples.
#
# Needs scripts/build.sh first.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/examples.sh"
cd "$SB_ROOT"

guide=docs/porting-from-ctmediator.md
samples=examples/porting
[ -f "$guide" ] || sb_die "no $guide"
[ -d .build/dist/lib ] || sb_die "no .build/dist: run scripts/build.sh first"

# Every Swift, C and Lua block is a checked file (Objective-C is CTMediator's).
unmarked=$(sb_unmarked_blocks "$guide" swift c lua)
[ -z "$unmarked" ] || sb_die "$(printf 'code the checker cannot run:\n%s' "$unmarked")"

# Every marked file is shown as it is; every file is shown.
shown=$(sb_example_files "$guide")
for file in $shown; do sb_check_shown "$guide" "$file"; done
while IFS= read -r file; do
  grep -qxF "$file" <<< "$shown" || sb_die "$guide does not show $file"
done < <(find "$samples" -type f ! -path '*/generated/*' ! -path "$samples/swift/main.swift" | sort)

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export PKG_CONFIG_PATH="$SB_ROOT/.build/dist/lib/pkgconfig"
export LUA_CPATH="$SB_ROOT/.build/dist/lib/lua/5.4/?.so;;"
flags="-std=c99 -Wall -Wextra -Werror -pedantic"

# Build: the Swift samples (a no-op after scripts/build.sh unless they
# changed), the C plugins (linking nothing of Switchboard) and programs.
swift build "${SB_RELEASE_FLAGS[@]}" --product SwitchboardPorting > "$out/swift-build.log" 2>&1 ||
  { cat "$out/swift-build.log" >&2; sb_die "the Swift samples do not build"; }
for source in "$samples"/c/*.c; do
  name=$(basename "$source" .c)
  case "$name" in
    Target_*) cc $flags -shared -fPIC "$source" $(pkg-config --cflags switchboard) -o "$out/$name.so" ;;
    *) cc $flags "$source" $(pkg-config --cflags --libs switchboard) -o "$out/$name" ;;
  esac
done

# run FILE: runs the sample FILE as the table above says.
run() {
  local name
  name=$(basename "${1%.*}")
  case "$1" in
    "$samples"/swift/*.swift) .build/release/SwitchboardPorting "$name" ;;
    "$samples"/c/*.c) (cd "$out" && "./$name") ;;
    "$samples"/lua/*.lua) (cd "$samples/lua" && lua5.4 "$name.lua") ;;
    *) sb_die "$guide shows output for $1, which is no sample program" ;;
  esac
}

# Every program's output is shown, and is what it prints.
ran=""
while IFS= read -r marker; do
  for file in $(sed -E 's/^<!-- output: (.+) -->$/\1/' <<< "$marker"); do
    status=0
    run "$file" > "$out/printed" 2>&1 || status=$?
    [ "$status" = 0 ] || { cat "$out/printed" >&2; sb_die "$file failed (exit $status)"; }
    if ! diff <(sb_block_after "$guide" "$marker") "$out/printed" > "$out/diff"; then
      cat "$out/diff" >&2
      sb_die "$file does not print what $guide shows (< the guide, > the program)"
    fi
    ran+="$file"$'\n'
  done
done < <(grep -E '^<!-- output: .+ -->$' "$guide")
for file in $shown; do
  case "$(basename "$file")" in Target_*|*.h) continue ;; esac
  grep -qxF "$file" <<< "$ran" || sb_die "$guide shows no output for $file"
done
echo "$guide: $(wc -w <<< "$shown") samples shown as they are; every program prints what the guide shows"
