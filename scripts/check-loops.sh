#!/usr/bin/env bash
# The event-loop recipes of examples/loops run against the staged library
# and the loops Debian ships (scripts/deps.sh installs them): a libuv host,
# a GLib host, a raw epoll loop in edge-triggered mode (C, built with the
# strict flags), a luv script and a cqueues script (lua5.4). Each runs in a
# folder holding module_a.so, as PREFIX/share/switchboard/examples does,
# and must exit 0 (each checks that every answer came, on the loop's
# thread) and print what is written below (the C programs) or in its own
# --> comments (the Lua scripts, run as the docs' Lua samples are). The
# README's "Event loops" section and docs/lua.md show these files
# (scripts/check-samples.sh checks that they match).
#
# Needs scripts/build.sh first.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

dist="$SB_ROOT/.build/dist"
[ -f "$dist/lib/libswitchboard.so.1" ] || sb_die "no staged library: run scripts/build.sh first"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export PKG_CONFIG_PATH="$dist/lib/pkgconfig"
export LUA_CPATH="$dist/lib/lua/5.4/?.so;;"
cp "$dist/share/switchboard/examples/module_a.so" "$out/"
flags="-std=c99 -Wall -Wextra -Werror -pedantic"

# What each C recipe prints, sorted: the downloads end in the order of their
# delays (10, 30 then 60 ms) unless the machine is busy, so the lines are
# compared in sorted order.
expected_uv="https://example.com/fast: 24000 bytes, on the loop's thread
https://example.com/medium: 26000 bytes, on the loop's thread
https://example.com/slow: 24000 bytes, on the loop's thread"
expected_glib="${expected_uv//the loop\'s thread/the main loop\'s thread}"
expected_epoll="10 answers, at most 2 a turn of an edge-triggered loop, none left behind"

for recipe in uv:libuv glib:glib-2.0 epoll:; do
  name=${recipe%%:*} library=${recipe#*:}
  # shellcheck disable=SC2046 # pkg-config's words are separate arguments
  cc $flags "examples/loops/$name.c" $(pkg-config --cflags --libs switchboard $library) -lpthread -o "$out/$name"
  printed=$(cd "$out" && "./$name") || sb_die "examples/loops/$name.c failed"
  printed=$(sort <<< "$printed")
  want="expected_$name"
  if [ "$printed" != "${!want}" ]; then
    diff <(printf '%s\n' "${!want}") <(printf '%s\n' "$printed") >&2 || true
    sb_die "examples/loops/$name.c printed something else (< expected, > printed)"
  fi
  echo "examples/loops/$name.c: ok"
done

for script in luv cqueues; do
  python3 scripts/lib/samples.py doctest-file "examples/loops/$script.lua" "$out" ||
    sb_die "examples/loops/$script.lua did not print what its --> comments say"
  echo "examples/loops/$script.lua: ok"
done
