#!/usr/bin/env bash
# Installs as users and packagers do, then checks what they get:
#
# - `--prefix DIR` (spelt unnormalised) and `DESTDIR=STAGE --prefix /opt/...`:
#   the same files; .pc files naming the prefix (normalised, no run path, no
#   URL), and what `pkg-config --cflags --libs` prints for each;
# - a C program and a plugin built with pkg-config, run with no Swift library
#   on any path; hello.c built as C++ against the installed header; the
#   staged copy used through PKG_CONFIG_SYSROOT_DIR;
# - the installed Lua module in stock lua5.4, the installed command over the
#   installed example scenarios, the installed docs; the man pages (found by
#   man, one per subcommand, rendered without warnings, with the real exit
#   statuses and the prefix written out); --help naming the prefix;
# - the README's blocks that need an install (the host's build line, the two
#   CMake projects, the lines in the examples folder), as they are;
# - the shell completions, bash's as bash-completion loads it;
# - scripts/uninstall.sh: nothing of ours left, and what is not ours kept.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/examples.sh"
cd "$SB_ROOT"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
flags="-std=c99 -Wall -Wextra -Werror -pedantic"
# What pkg-config prints, spaces normalised (it ends with one).
flags_of() { local out; out=$(pkg-config --cflags --libs "$@"); echo $out; }
version=$(sed -nE 's/^#define SB_VERSION_STRING "([^"]+)"/\1/p' include/switchboard.h)

# --- an installed prefix, asked for as .../x/../prefix/ -----------------------
prefix="$tmp/prefix"
scripts/install.sh --prefix "$tmp//x/../prefix/" --no-build > /dev/null
[ -f "$prefix/lib/libswitchboard.so.1" ] || sb_die "install.sh did not normalise --prefix into $prefix"
# The library file is named after the release; the SONAME and the linker's name are links.
for lib in libswitchboard libswitchboard_lua; do
  [ -f "$prefix/lib/$lib.so.$version" ] && [ ! -L "$prefix/lib/$lib.so.$version" ] || sb_die "no file $lib.so.$version installed"
  [ "$(readlink "$prefix/lib/$lib.so.1")" = "$lib.so.$version" ] || sb_die "$lib.so.1 is not a link to $lib.so.$version"
  [ "$(readlink "$prefix/lib/$lib.so")" = "$lib.so.1" ] || sb_die "$lib.so is not a link to $lib.so.1"
done
# Installing again over it changes nothing the uninstaller will need.
scripts/install.sh --prefix "$prefix" --no-build > /dev/null
for pc in switchboard switchboard-lua; do
  file="$prefix/lib/pkgconfig/$pc.pc"
  grep -qx "prefix=$prefix" "$file" || sb_die "$pc.pc does not name the prefix $prefix"
  grep -qx "Version: $version" "$file" || sb_die "$pc.pc does not say version $version"
  if grep -v '^#' "$file" | grep -Eq 'rpath|pcfiledir|/\.\./|^URL:'; then sb_die "$pc.pc has a run path, a relative prefix or a URL: $(cat "$file")"; fi
done
# The public headers, and nothing else: the faces' entry points
# (switchboard_sys.h) travel only with the Lua module's C glue.
headers=$(cd "$prefix/include" && find . -mindepth 1 | sort | tr '\n' ' ')
[ "$headers" = "./switchboard.h ./switchboard_lua.h " ] || sb_die "PREFIX/include holds $headers(only switchboard.h and switchboard_lua.h)"
[ -f "$prefix/share/switchboard/lua/Sources/CSwitchboard/include/switchboard_sys.h" ] \
  || sb_die "switchboard_sys.h, which the Lua glue reads, is not in PREFIX/share/switchboard/lua"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
got=$(flags_of switchboard)
[ "$got" = "-I$prefix/include -L$prefix/lib -lswitchboard" ] || sb_die "pkg-config switchboard printed: $got"
got_lua=$(flags_of switchboard-lua)
for want in "-I$prefix/include" "-L$prefix/lib" -lswitchboard_lua -lswitchboard $(pkg-config --libs lua5.4); do
  grep -qF -- " $want " <<< " $got_lua " || sb_die "pkg-config switchboard-lua lacks $want: $got_lua"
done

# The C demo and its plugin, the way a user builds them; the run path is the
# program's to choose (here LD_LIBRARY_PATH), and no Swift library is needed.
cc $flags examples/c/main.c $(pkg-config --cflags --libs switchboard) -o "$tmp/demo"
cc $flags -D_POSIX_C_SOURCE=200809L -shared -fPIC examples/c/module_a.c $(pkg-config --cflags switchboard) -o "$tmp/module_a.so"
if readelf -d "$tmp/demo" | grep -Eq 'RPATH|RUNPATH'; then sb_die "pkg-config gave the program a run path"; fi
if LD_LIBRARY_PATH="$prefix/lib" ldd "$tmp/demo" | grep -i swift; then sb_die "the installed program needs Swift libraries"; fi
output=$(env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$prefix/lib" "$tmp/demo" "$tmp/module_a.so")
grep -q 'NotFoundViewController' <<< "$output" || sb_die "the demo did not run through: $output"
# Its last step: a native action opened from a URL, refused, the completion told.
grep -q 'completion got {"error":.*"code":"EREJECTED"}' <<< "$output" || sb_die "the demo's URL steps did not run: $output"

# C++: every example compiles as C++, and hello.c, built as C++ against the
# installed header, runs.
cxx="g++ -std=c++11 -Wall -Wextra -Werror -pedantic -x c++"
for example in examples/c/*.c; do
  $cxx -D_POSIX_C_SOURCE=200809L -fsyntax-only $(pkg-config --cflags switchboard) -I examples/c "$example"
done
$cxx examples/c/hello.c -x none $(pkg-config --cflags --libs switchboard) -o "$tmp/hello_cxx"
LD_LIBRARY_PATH="$prefix/lib" "$tmp/hello_cxx" | grep -q 'greeter said: Hello, Ada!' \
  || sb_die "hello.c built as C++ did not greet"

version_lua=$(env -i PATH=/usr/bin:/bin LUA_CPATH="$prefix/lib/lua/5.4/?.so;;" \
  lua5.4 -e 'print(require("switchboard").version)')
[ "$version_lua" = "$version" ] || sb_die "lua5.4 could not require the installed module (got '$version_lua')"
# The command, from the installed examples, as its --help shows it.
tap=$(cd "$prefix/share/switchboard/examples" && env -i PATH=/usr/bin:/bin "$prefix/bin/switchboard" run \
  --plugin ./module_a.so --targets targets scenarios/*.lua 2>/dev/null) \
  || sb_die "the installed switchboard command did not pass the installed scenarios: $tap"
grep -q '^# [1-9][0-9]* passed, 0 failed' <<< "$tap" || sb_die "no summary line from the installed command: $tap"
if ldd "$prefix/bin/switchboard" | grep -i swift; then sb_die "the installed command needs Swift libraries"; fi
doc="$prefix/share/doc/switchboard"
for f in LICENSE README.md docs/lua.md docs/images/examples-graph.svg examples/c/hello.c examples/c/module_a.c examples/lua/hello.lua; do
  cmp -s "$f" "$doc/$f" || sb_die "$doc/$f is not installed (or differs from $f)"
done
[ -s "$prefix/share/switchboard/valgrind.supp" ] || sb_die "no share/switchboard/valgrind.supp installed"

# The manual: a page for the command and one for each subcommand its --help
# lists, found by man with PREFIX/bin on PATH (man-db looks in PREFIX/share/man
# then), rendered without a warning; switchboard(1) names every subcommand's page.
man1="$prefix/share/man/man1"
subcommands=$("$prefix/bin/switchboard" --help | awk '/^SUBCOMMANDS:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$subcommands" ] || sb_die "switchboard --help lists no subcommands"
man_in_prefix() { env -u MANPATH PATH="$prefix/bin:/usr/bin:/bin" MANWIDTH=200 man "$@"; }
main_page=$(man_in_prefix switchboard 2>&1) || true
for page in switchboard $(printf 'switchboard.%s ' $subcommands); do
  found=$(man_in_prefix -w "$page" 2>&1) || true
  [ "$found" = "$man1/$page.1" ] || sb_die "man -w $page found '$found', not $man1/$page.1"
  warnings=$(groff -mandoc -Tutf8 -ww -z "$found" 2>&1) || true
  [ -z "$warnings" ] || sb_die "$page.1 renders with warnings: $warnings"
  text=$(man_in_prefix -l "$found" 2>&1) || true
  name_line=$(awk '/^NAME$/ { getline; print; exit }' <<< "$text")
  [[ "$name_line" =~ ^\ +${page/./ }\ .*[A-Za-z] ]] || sb_die "$page.1 has no NAME line '${page/./ } - ...': $text"
  grep -q "^DESCRIPTION" <<< "$text" || sb_die "$page.1 has no DESCRIPTION: $text"
  [ "$page" = switchboard ] || grep -qF "$page(1)" <<< "$main_page" || sb_die "switchboard(1) does not name $page(1): $main_page"
done

# Each page lists the real exit statuses, and names the prefix, not PREFIX.
for page in "$man1"/*.1; do
  text=$(MANWIDTH=200 man -l "$page" 2>/dev/null)
  exits=$(awk '/^EXIT STATUS/ { on = 1; next } on && /^[A-Z]/ { exit } on' <<< "$text")
  case "${page##*/}" in
    switchboard.help.1) grep -q 'Exits 0' <<< "$exits" || sb_die "${page##*/}: EXIT STATUS says: $exits" ;;
    *) for code in 0 1 3 64; do grep -Eq "^ +$code +[A-Z]" <<< "$exits" || sb_die "${page##*/}: EXIT STATUS lacks $code: $exits"; done ;;
  esac
  if grep -q '>0\|PREFIX/' <<< "$text"; then sb_die "${page##*/} says '>0' or PREFIX/: $(grep '>0\|PREFIX/' <<< "$text")"; fi
done
help_page=$(MANWIDTH=200 man -l "$man1/switchboard.help.1" 2>/dev/null)
grep -q 'Shows the help of' <<< "$help_page" || sb_die "switchboard.help(1) has no description: $help_page"
# --help names where the examples are, not PREFIX.
help=$("$prefix/bin/switchboard" --help)
if grep -q 'PREFIX/' <<< "$help"; then sb_die "switchboard --help prints PREFIX/: $help"; fi
grep -q "$prefix/share/switchboard/examples" <<< "$help" || sb_die "switchboard --help does not name $prefix/share/switchboard/examples: $help"

# The README's C host line, as it is, in a folder holding hello.c: it runs
# with the run path it asked for and prints the README's output.
readme_output() { sb_block_after README.md "<!-- output: examples/c/hello.c -->"; }
mkdir "$tmp/host"
cp examples/c/hello.c "$tmp/host/"
(cd "$tmp/host" && env -i PATH=/usr/bin:/bin PKG_CONFIG_PATH="$prefix/lib/pkgconfig" bash -e <(sb_doc_block "$SB_ROOT/README.md" host)) \
  > "$tmp/host.out" 2>&1 || { cat "$tmp/host.out"; sb_die "the README's host lines failed"; }
diff <(readme_output) "$tmp/host.out" || sb_die "the README's host printed other lines than the README shows"

# CMake: the README's two CMakeLists.txt, each building hello.c against the
# prefix (find_package through CMAKE_PREFIX_PATH, pkg-config through
# PKG_CONFIG_PATH); the program runs from the build folder with the library
# of the prefix. A version this library cannot answer is refused.
# cmake_project ID CMAKELISTS [CMAKE ARGS...]: configures, builds and runs it.
cmake_project() {
  local id=$1 project="$tmp/$1" libs
  mkdir "$project"
  cp examples/c/hello.c "$project/"
  printf '%s\n' "$2" > "$project/CMakeLists.txt"
  shift 2
  env -i PATH=/usr/bin:/bin PKG_CONFIG_PATH="$prefix/lib/pkgconfig" cmake -S "$project" -B "$project/build" "$@" \
    > "$tmp/$id.log" 2>&1 || { cat "$tmp/$id.log"; sb_die "the README's $id project does not configure"; }
  cmake --build "$project/build" >> "$tmp/$id.log" 2>&1 || { cat "$tmp/$id.log"; sb_die "the README's $id project does not build"; }
  diff <(readme_output) <(env -i "$project/build/hello") || sb_die "the README's $id program printed other lines"
  libs=$(ldd "$project/build/hello")
  grep -q "=> $prefix/lib/libswitchboard.so.1 " <<< "$libs" || sb_die "$id linked another library: $libs"
}
cmake_project cmake "$(sb_doc_block README.md cmake)" -DCMAKE_PREFIX_PATH="$prefix"
cmake_project cmake-pkg-config "$(sb_doc_block README.md cmake-pkg-config)"
mkdir "$tmp/cmake-v2"
sed 's/find_package(switchboard 1.0 /find_package(switchboard 2.0 /' "$tmp/cmake/CMakeLists.txt" > "$tmp/cmake-v2/CMakeLists.txt"
if cmake -S "$tmp/cmake-v2" -B "$tmp/cmake-v2/build" -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/cmake-v2.log" 2>&1 ||
   ! grep -q 'compatible with requested version "2.0"' "$tmp/cmake-v2.log"; then
  cat "$tmp/cmake-v2.log"; sb_die "find_package(switchboard 2.0) did not refuse version $version as incompatible"
fi

# The README's lines in the installed examples folder (PREFIX written out):
# the scenarios pass and the URL call prints the cell.
examples_out=$(env -i PATH="$prefix/bin:/usr/bin:/bin" bash -e -c "$(sb_doc_block README.md examples | sed "s|PREFIX|$prefix|g")" 2>&1) \
  || sb_die "the README's lines in the installed examples failed: $examples_out"
[[ "$(tail -n 1 <<< "$examples_out")" == '{"cell":"cell 1",'* ]] || sb_die "the README's call printed: $examples_out"

# Shell completions: where each shell looks, and bash completes a subcommand
# with the file bash-completion loads from XDG_DATA_DIRS.
for f in bash-completion/completions/switchboard zsh/site-functions/_switchboard fish/vendor_completions.d/switchboard.fish; do
  grep -q replay "$prefix/share/$f" || sb_die "no completion $prefix/share/$f (or one without the subcommands)"
done
completed=$(env -i PATH="$prefix/bin:/usr/bin:/bin" XDG_DATA_DIRS="$prefix/share" bash --norc --noprofile -c '
  source /usr/share/bash-completion/bash_completion
  __load_completion switchboard || exit 1
  COMP_WORDS=(switchboard r) COMP_CWORD=1 COMP_LINE="switchboard r" COMP_POINT=13
  $(complete -p switchboard | sed -E "s/.* -F ([^ ]+) .*/\1/") switchboard r switchboard
  echo "${COMPREPLY[*]}"' 2>&1) || sb_die "bash did not load the installed completion: $completed"
[ "$completed" = "run replay routes report" ] || sb_die "bash completed 'switchboard r' as: $completed"

# --- staged with DESTDIR, for /opt/switchboard --------------------------------
stage="$tmp/stage"
DESTDIR="$stage" scripts/install.sh --prefix /opt/switchboard --no-build > /dev/null
staged="$stage/opt/switchboard"
diff <(cd "$prefix" && find . | sort) <(cd "$staged" && find . | sort) \
  || sb_die "DESTDIR staging installed other files than --prefix"
if grep -rqF "$stage" "$staged/lib/pkgconfig" "$staged/share/switchboard/install-manifest.txt"; then
  sb_die "the staging folder leaked into the .pc files or the manifest"
fi
got=$(PKG_CONFIG_PATH="$staged/lib/pkgconfig" flags_of switchboard)
[ "$got" = "-I/opt/switchboard/include -L/opt/switchboard/lib -lswitchboard" ] \
  || sb_die "the staged switchboard.pc prints: $got"
# Cross-building against the staging folder, as packagers do.
sysroot_flags=$(PKG_CONFIG_SYSROOT_DIR="$stage" PKG_CONFIG_PATH="$staged/lib/pkgconfig" flags_of switchboard)
[ "$sysroot_flags" = "-I$staged/include -L$staged/lib -lswitchboard" ] || sb_die "with PKG_CONFIG_SYSROOT_DIR: $sysroot_flags"
cc $flags examples/c/hello.c $sysroot_flags -o "$tmp/hello_staged"
LD_LIBRARY_PATH="$staged/lib" "$tmp/hello_staged" | grep -q 'greeter said: Hello, Ada!' \
  || sb_die "hello.c built against the staged copy did not greet"

installed=$(cd "$prefix" && find . -type f | wc -l)

# --- uninstall ------------------------------------------------------------------
DESTDIR="$stage" scripts/uninstall.sh --prefix /opt/switchboard > /dev/null
[ ! -e "$staged/share/man" ] || sb_die "uninstall left manual pages: $(find "$staged/share/man")"
left=$(cd "$stage" && find . -mindepth 1)
[ -z "$left" ] || sb_die "uninstall left in the staging folder: $left"
# Something of the user's in an installed folder stays, with that folder.
echo mine > "$prefix/lib/not-switchboard.txt"
scripts/install.sh --uninstall --prefix "$prefix" > /dev/null
left=$(cd "$tmp" && find prefix | sort | tr '\n' ' ')
[ "$left" = "prefix prefix/lib prefix/lib/not-switchboard.txt " ] || sb_die "uninstall left (or took) other files: $left"

echo "installed with --prefix and with DESTDIR (the same $installed files;" \
  ".pc files with the prefix, no run path); C, C++ and lua5.4 used the install;" \
  "man found $(wc -w <<< "switchboard $subcommands") pages; uninstalled exactly"
