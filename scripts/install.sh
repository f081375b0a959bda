#!/usr/bin/env bash
# Installs Switchboard into a prefix (default /usr/local), as autotools and
# CMake users expect: --prefix is where the files will live, DESTDIR (an
# environment variable) a staging folder put in front of every path, for
# distribution packages.
#
#   PREFIX/lib/libswitchboard.so.1.1.0       the library (the release in its name),
#   PREFIX/lib/libswitchboard.so.1, .so      links to it (the SONAME, for the linker)
#   PREFIX/lib/lua/5.4/switchboard.so        the Lua module (require "switchboard")
#   PREFIX/lib/libswitchboard_lua.so.1.1.0   the same, for C hosts embedding Lua (and links)
#   PREFIX/lib/.debug/*.debug, PREFIX/lib/lua/5.4/.debug/, PREFIX/bin/.debug/
#                                            debug info of the stripped ELF files
#                                            (found by gdb and valgrind through
#                                            .gnu_debuglink)
#   PREFIX/lib/pkgconfig/switchboard.pc, switchboard-lua.pc
#   PREFIX/lib/cmake/switchboard/switchboardConfig.cmake, ...ConfigVersion.cmake
#                                            find_package(switchboard) for CMake
#   PREFIX/include/switchboard.h, switchboard_lua.h
#   PREFIX/bin/switchboard                   the command (runs scenario scripts)
#   PREFIX/share/switchboard/examples/       scenarios, Lua targets, module_a.so
#   PREFIX/share/switchboard/lua/            the rockspec and the Lua module's C
#                                            glue, for luarocks make (docs/lua.md)
#   PREFIX/share/switchboard/valgrind.supp   the Swift runtime's own blocks
#   PREFIX/share/bash-completion/completions/switchboard,
#   PREFIX/share/zsh/site-functions/_switchboard,
#   PREFIX/share/fish/vendor_completions.d/switchboard.fish   shell completions
#   PREFIX/share/doc/switchboard/            README, LICENSE, docs/ (and its pictures), examples/
#   PREFIX/share/man/man1/switchboard.1, switchboard.SUBCOMMAND.1   man pages
#   PREFIX/share/switchboard/install-manifest.txt   what scripts/uninstall.sh removes
#
#   scripts/install.sh [--prefix DIR] [--no-build]
#   DESTDIR=/tmp/stage scripts/install.sh --prefix /usr --no-build
#   scripts/install.sh --uninstall [--prefix DIR]     (same as scripts/uninstall.sh)
#
# The .pc files name PREFIX and no run path: for a prefix the loader does not
# search, link with -Wl,-rpath,PREFIX/lib or run with LD_LIBRARY_PATH.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

prefix=/usr/local
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="${2:?--prefix needs a directory}"; shift 2 ;;
    --prefix=*) prefix="${1#--prefix=}"; shift ;;
    --no-build) build=0; shift ;;
    --uninstall) shift; exec "$SB_ROOT/scripts/uninstall.sh" --prefix "$prefix" "$@" ;;
    -h|--help) sed -n '2,37p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) sb_die "unknown option: $1 (see --help)" ;;
  esac
done
destdir="${DESTDIR:-}"
case "$prefix" in
  /*) ;;
  *) [ -z "$destdir" ] || sb_die "with DESTDIR, --prefix must be absolute (got $prefix)" ;;
esac
# Absolute and normalised (no //, /./ or /../), as the .pc files will say it.
prefix="$(realpath -m -s "$prefix")"
cd "$SB_ROOT"

[ "$build" = 1 ] && scripts/build.sh
dist=.build/dist
[ -d "$dist/lib" ] || sb_die "nothing staged in $dist; run scripts/build.sh"
version=$(sed -nE 's/^#define SB_VERSION_STRING "([^"]+)"/\1/p' include/switchboard.h)
root="$destdir$prefix"
manifest_path="share/switchboard/install-manifest.txt"
manifest="$(mktemp)"
trap 'rm -f "$manifest"' EXIT

# Every path written is recorded (as PREFIX/..., without DESTDIR) so that the
# uninstaller removes exactly these: files and links, then the folders this
# or an earlier install created, once empty.
record() { printf '%s %s\n' "$1" "$prefix/$2" >> "$manifest"; }
make_dir() {  # make_dir REL: creates PREFIX/REL and the folders missing above it (PREFIX too)
  local d="$prefix/$1"
  d="${d%/.}"
  while [ "$d" != / ] && [ ! -d "$destdir$d" ]; do
    printf 'd %s\n' "$d" >> "$manifest"
    d="$(dirname "$d")"
  done
  install -d "$destdir$prefix/$1"
}
put() {  # put MODE SRC REL
  make_dir "$(dirname "$3")"
  install -m "$1" "$2" "$root/$3"
  record f "$3"
}
put_link() {  # put_link TARGET REL
  make_dir "$(dirname "$2")"
  ln -sfn "$1" "$root/$2"
  record l "$2"
}
# An ELF file, stripped, with its debug info beside it in .debug/NAME.debug
# (the first place gdb and valgrind look for a .gnu_debuglink target),
# zlib-compressed as Debian's dh_strip does (valgrind 3.19 and gdb read it;
# the library's goes from 23 to 13 MB).
put_elf() {  # put_elf MODE SRC REL
  local name dir debug stripped
  name="$(basename "$3")" dir="$(dirname "$3")"
  debug="$(mktemp -d)/$name.debug"
  stripped="$(dirname "$debug")/$name"
  objcopy --only-keep-debug --compress-debug-sections=zlib "$2" "$debug"
  strip --strip-debug --strip-unneeded --remove-section=.comment -o "$stripped" "$2"
  (cd "$(dirname "$debug")" && objcopy --add-gnu-debuglink="$name.debug" "$name")
  put "$1" "$stripped" "$3"
  put 644 "$debug" "$dir/.debug/$name.debug"
  rm -rf "$(dirname "$debug")"
}
# A .pc file: the prefix written out (normalised), no run path.
put_pc() {  # put_pc NAME
  local tmp; tmp="$(mktemp -d)"
  { echo "# Switchboard $version. License: MIT ($prefix/share/doc/switchboard/LICENSE)."
    sed -e '/^#/d' -e "s/@VERSION@/$version/" -e "s|@PREFIX@|$prefix|" -e 's|@RUNPATH@||' "pkgconfig/$1.pc.in"
  } > "$tmp/$1.pc"
  put 644 "$tmp/$1.pc" "lib/pkgconfig/$1.pc"
  rm -rf "$tmp"
}

# An earlier install's folders stay on the list: they are still ours.
if [ -f "$root/$manifest_path" ]; then grep '^d ' "$root/$manifest_path" >> "$manifest" || true; fi

for lib in libswitchboard libswitchboard_lua; do
  for f in "$dist/lib/$lib".so.*; do
    if [ -L "$f" ]; then put_link "$(readlink "$f")" "lib/$(basename "$f")"
    else put_elf 755 "$f" "lib/$(basename "$f")"; fi
  done
  put_link "$(basename "$(readlink "$dist/lib/$lib.so")")" "lib/$lib.so"
done
put_elf 755 "$dist/lib/lua/5.4/switchboard.so" lib/lua/5.4/switchboard.so
put_pc switchboard
put_pc switchboard-lua
for f in "$dist"/lib/cmake/switchboard/*.cmake; do put 644 "$f" "lib/cmake/switchboard/$(basename "$f")"; done
for h in "$dist"/include/*.h; do put 644 "$h" "include/$(basename "$h")"; done
put_elf 755 "$dist/bin/switchboard" bin/switchboard
put 644 packaging/valgrind.supp share/switchboard/valgrind.supp

# What `switchboard --help` points at, ready to run from one folder; the
# Lua module's rock.
rm -rf "$root/share/switchboard/examples" "$root/share/switchboard/lua"
(cd "$dist/share/switchboard" && find examples lua -type f | sort) | while read -r f; do
  case "$f" in *.so) mode=755 ;; *) mode=644 ;; esac
  put "$mode" "$dist/share/switchboard/$f" "share/switchboard/$f"
done
# Shell completions, where bash-completion, zsh and fish look under PREFIX/share.
for f in bash-completion/completions/switchboard zsh/site-functions/_switchboard fish/vendor_completions.d/switchboard.fish; do
  put 644 "$dist/share/$f" "share/$f"
done
# The documentation, with the example sources the README shows.
doc=share/doc/switchboard
for f in README.md LICENSE; do put 644 "$f" "$doc/$f"; done
{ find docs -type f \( -name '*.md' -o -name '*.svg' \); find examples -type f ! -name '*.so' ! -name '*.o'; } | sort |
  while read -r f; do put 644 "$f" "$doc/$f"; done

# The manual pages scripts/build.sh generated (man switchboard, man switchboard.run).
[ -f "$dist/share/man/man1/switchboard.1" ] || sb_die "no manual pages staged in $dist; run scripts/build.sh"
# Their examples name PREFIX/share/...: written out here, as in the .pc files.
pages="$(mktemp -d)"
for page in "$dist"/share/man/man1/*.1; do
  sed "s|PREFIX/|$prefix/|g" "$page" > "$pages/${page##*/}"
  put 644 "$pages/${page##*/}" "share/man/man1/${page##*/}"
done
rm -rf "$pages"

make_dir share/switchboard
record f "$manifest_path"
sort -u "$manifest" > "$root/$manifest_path"
chmod 644 "$root/$manifest_path"

# A system prefix, installed for real: let the loader cache know.
if [ -z "$destdir" ] && [ "$(id -u)" = 0 ] && command -v ldconfig >/dev/null && [ "$prefix" = /usr/local ]; then ldconfig; fi

echo "installed into $root"
echo "  Command: $prefix/bin/switchboard --help"
echo "  C:   cc app.c \$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs switchboard) -Wl,-rpath,$prefix/lib"
if [ "$prefix" = /usr/local ]; then
  echo "  Lua: lua5.4 -e 'print(require(\"switchboard\").version)'"
else
  echo "  Lua: LUA_CPATH='$prefix/lib/lua/5.4/?.so;;' lua5.4 -e 'print(require(\"switchboard\").version)'"
fi
echo "  Manual: man switchboard, man switchboard.run (with $prefix/bin on PATH, or MANPATH=$prefix/share/man:)"
echo "  valgrind --suppressions=$prefix/share/switchboard/valgrind.supp ..."
echo "  Uninstall: scripts/uninstall.sh --prefix $prefix"
