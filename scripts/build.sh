#!/usr/bin/env bash
# Builds everything in release mode and stages what is shipped in .build/dist:
#
#   .build/dist/lib/libswitchboard.so.1.0.0    (static Swift runtime inside;
#                                               named after SB_VERSION_STRING)
#   .build/dist/lib/libswitchboard.so.1 -> libswitchboard.so.1.0.0 (the SONAME:
#                                               SB_ABI_VERSION)
#   .build/dist/lib/libswitchboard.so -> libswitchboard.so.1
#   .build/dist/lib/pkgconfig/switchboard.pc
#   .build/dist/include/switchboard.h, switchboard_lua.h
#   .build/dist/lib/lua/5.4/switchboard.so     (the Lua module, for lua5.4)
#   .build/dist/lib/libswitchboard_lua.so.1.0.0 (the same, for C hosts:
#                                               sb_lua_open; links as above)
#   .build/dist/lib/pkgconfig/switchboard-lua.pc
#   .build/dist/bin/switchboard                 (the command; the runtime inside)
#   .build/dist/lib/cmake/switchboard/          (find_package(switchboard))
#   .build/dist/share/switchboard/examples/     (scenarios, Lua targets, module_a.so)
#   .build/dist/share/switchboard/lua/          (the rockspec and the Lua module's C glue)
#   .build/dist/share/man/man1/switchboard.1, switchboard.SUBCOMMAND.1
#   .build/dist/share/bash-completion/completions/switchboard, zsh's
#   _switchboard, fish's switchboard.fish      (shell completions)
#
# Then `PKG_CONFIG_PATH=.build/dist/lib/pkgconfig cc app.c $(pkg-config
# --cflags --libs switchboard)` builds a C program against it.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

# -static-stdlib: the library (and the executables) carry their own Swift
# runtime, so they run where no Swift toolchain is installed (see
# SB_RELEASE_FLAGS in lib/common.sh).
swift build "${SB_RELEASE_FLAGS[@]}"

dist=.build/dist
version=$(sed -nE 's/^#define SB_VERSION_STRING "([^"]+)"/\1/p' include/switchboard.h)
abi=$(sed -nE 's/^#define SB_ABI_VERSION ([0-9]+)/\1/p' include/switchboard.h)

rm -rf "$dist"
mkdir -p "$dist/lib/pkgconfig" "$dist/lib/lua/5.4" "$dist/include" "$dist/bin"
# The real file carries the release, the SONAME link the ABI, as ldconfig
# and distributions expect: libX.so -> libX.so.ABI -> libX.so.VERSION.
link_library() {  # link_library NAME: NAME.so.ABI and NAME.so for NAME.so.VERSION
  ln -s "$1.so.$version" "$dist/lib/$1.so.$abi"
  ln -s "$1.so.$abi" "$dist/lib/$1.so"
}
# Each Swift object has an index of its own names (.debug_names); the linker
# joins them into one section that no reader accepts (gdb warns "length ...
# does not match section length" and ignores it), so it is left out. gdb
# reads the DWARF without it.
objcopy --remove-section=.debug_names .build/release/libswitchboard.so "$dist/lib/libswitchboard.so.$version"
link_library libswitchboard
cp include/switchboard.h include/switchboard_lua.h "$dist/include/"
# Staging .pc files: relative to themselves, with a run path to the staged
# library (scripts/install.sh writes the installed ones: absolute, no run path).
for pc in switchboard switchboard-lua; do
  sed -e "s/@VERSION@/$version/" -e 's|@PREFIX@|${pcfiledir}/../..|' \
      -e 's|@RUNPATH@| -Wl,-rpath,${libdir}|' "pkgconfig/$pc.pc.in" > "$dist/lib/pkgconfig/$pc.pc"
done
# CMake's package config (find_package(switchboard)): relative to itself, so
# the staged copy serves as the installed one.
mkdir -p "$dist/lib/cmake/switchboard"
for f in switchboardConfig switchboardConfigVersion; do
  sed -e "s/@VERSION@/$version/g" -e "s/@ABI@/$abi/g" -e "s/@MAJOR@/${version%%.*}/g" \
    "packaging/cmake/$f.cmake.in" > "$dist/lib/cmake/switchboard/$f.cmake"
done

# The Lua module: C glue only, linked to libswitchboard (never a second copy
# of the runtime) and not to liblua (the host provides the Lua API). Built
# twice: as the module lua5.4 requires (finding the library two directories
# up), and as libswitchboard_lua for C hosts that embed Lua.
lua_glue() {
  cc -std=c99 -Wall -Wextra -Werror -pedantic -O2 -g -gdwarf-4 -fdebug-prefix-map="$SB_ROOT=$SB_DEBUG_SOURCE_DIR" \
    -fPIC -shared -fvisibility=hidden \
    -D_POSIX_C_SOURCE=200809L -I include -I Sources/CSwitchboard/include -I Sources/SwitchboardLua/include \
    $(pkg-config --cflags lua5.4) Sources/SwitchboardLua/*.c -L "$dist/lib" -lswitchboard -lpthread "$@"
}
lua_glue -Wl,-rpath,'$ORIGIN/../..' -o "$dist/lib/lua/5.4/switchboard.so"
lua_glue -Wl,-rpath,'$ORIGIN' -Wl,-soname,"libswitchboard_lua.so.$abi" -o "$dist/lib/libswitchboard_lua.so.$version"
link_library libswitchboard_lua
# The command carries the runtime itself and exports the sb_ functions to
# the plugins it loads; it needs no libswitchboard.so.
objcopy --remove-section=.debug_names .build/release/switchboard-cli "$dist/bin/switchboard"
chmod 755 "$dist/bin/switchboard"
# Shell completions, written by swift-argument-parser from the command's own
# options, where bash-completion, zsh and fish look under a prefix.
mkdir -p "$dist/share/bash-completion/completions" "$dist/share/zsh/site-functions" "$dist/share/fish/vendor_completions.d"
"$dist/bin/switchboard" --generate-completion-script bash > "$dist/share/bash-completion/completions/switchboard"
"$dist/bin/switchboard" --generate-completion-script zsh > "$dist/share/zsh/site-functions/_switchboard"
"$dist/bin/switchboard" --generate-completion-script fish > "$dist/share/fish/vendor_completions.d/switchboard.fish"

# The examples the command's --help refers to, ready to run from one folder.
examples="$dist/share/switchboard/examples"
mkdir -p "$examples/scenarios" "$examples/targets"
cp examples/scenarios/*.lua examples/scenarios/*.jsonl "$examples/scenarios/"
cp examples/lua/targets/*.lua examples/scenarios/targets/*.lua "$examples/targets/"
cc -std=c99 -Wall -Wextra -Werror -pedantic -O2 -shared -fPIC -I include examples/c/module_a.c -o "$examples/module_a.so"

# The Lua binding as a rock: its rockspec and the C glue that it compiles,
# laid out as in this repository, so that `luarocks make` builds it from a
# copy of an installed PREFIX/share/switchboard/lua (docs/lua.md). The
# library's private headers the glue reads go with it (switchboard_sys.h:
# the faces' entry points), never into PREFIX/include.
rock="$dist/share/switchboard/lua"
mkdir -p "$rock/Sources/SwitchboardLua/include" "$rock/Sources/CSwitchboard/include"
cp rockspecs/switchboard-scm-1.rockspec "$rock/"
cp Sources/SwitchboardLua/*.c Sources/SwitchboardLua/*.h "$rock/Sources/SwitchboardLua/"
cp Sources/SwitchboardLua/include/*.h "$rock/Sources/SwitchboardLua/include/"
cp Sources/CSwitchboard/include/switchboard_file.h Sources/CSwitchboard/include/switchboard_sys.h \
  "$rock/Sources/CSwitchboard/include/"

# Manual pages: swift-argument-parser's generate-manual plugin reads the
# command just built (--experimental-dump-help) and writes switchboard.1 and
# one page per subcommand (switchboard.run.1, ...). Made at each build, never
# committed, so they say what --help says. With the build's own flags the
# plugin's build of the package finds nothing to do; it writes under .build.
manual=.build/plugins/GenerateManual/outputs/SwitchboardCommand
rm -rf "$manual"
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)
else date=$(git log -1 --format=%cs 2>/dev/null || date -u +%F); fi  # reproducible: the commit's date
swift package "${SB_RELEASE_FLAGS[@]}" plugin generate-manual --multi-page --date "$date" \
  > .build/generate-manual.log 2>&1 || { cat .build/generate-manual.log >&2; sb_die "the generate-manual plugin failed"; }
[ -f "$manual/switchboard.1" ] || sb_die "generate-manual wrote no $manual/switchboard.1"
mkdir -p "$dist/share/man/man1"
for page in "$manual"/*.1; do
  # Paragraphs, the footer, EXIT STATUS and the help page's description:
  # see scripts/lib/man-page.awk.
  name="${page##*/}"
  awk -v page="${name%.1}" -v version="$version" -f scripts/lib/man-page.awk "$page" > "$dist/share/man/man1/$name"
done

echo "staged $dist (switchboard $version, ABI $abi)"
