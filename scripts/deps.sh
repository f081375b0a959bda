#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need, if any is missing.
# Needs root (or sudo) on Debian/Ubuntu; elsewhere it says what to install.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

# package -> a file or command that proves it is installed
declare -A probe=(
  [lua5.4]=/usr/bin/lua5.4
  [liblua5.4-dev]=/usr/include/lua5.4/lua.h
  [libssl3]=/usr/share/doc/libssl3/copyright  # libcrypto: the C face signs URLs with it (opened on first use)
  [lua-busted]=/usr/bin/busted
  [pkg-config]=/usr/bin/pkg-config
  [valgrind]=/usr/bin/valgrind
  [python3]=/usr/bin/python3   # scripts/bench.sh builds its report with it
  [bsdutils]=/usr/bin/script   # scripts/cli-tests.sh: a terminal for the progress line
  [perl]=/usr/bin/prove        # scripts/cli-tests.sh: prove reads the command's TAP 13
  [tappy]=/usr/bin/tappy       # ... python3-tap reads its TAP 14
  [python3-junitparser]=/usr/lib/python3/dist-packages/junitparser   # ... and its JUnit XML
  [luarocks]=/usr/bin/luarocks # scripts/check-luarocks.sh: the rockspec, as Lua users install it
  [g++]=/usr/bin/g++           # scripts/check-install.sh, check-header-languages.sh: C++
  [gdb]=/usr/bin/gdb           # scripts/check-debuginfo.sh: the installed debug file, as gdb reads it
  [binutils]=/usr/bin/objcopy  # scripts/install.sh: stripped files, debug info beside them
  [abigail-tools]=/usr/bin/abidiff  # scripts/abi.sh: the library's ABI against abi/libswitchboard.abi
  [cmake]=/usr/bin/cmake       # scripts/check-install.sh: a CMake project finds the installed library
  [lua-socket]=/usr/lib/x86_64-linux-gnu/liblua5.4-socket.so.2  # docs/lua.md: its asynchronous sample waits on sb.fd() with socket.select
  [bash-completion]=/usr/share/bash-completion/bash_completion  # scripts/check-install.sh: the installed completion, as bash loads it
  [graphviz]=/usr/bin/dot      # tests only: switchboard graph --format svg|png runs dot (never bundled; Tests/cli/tests_12_graph)
  # scripts/check-loops.sh: the event-loop recipes of examples/loops, against the loops Debian ships
  [libuv1-dev]=/usr/include/uv.h
  [libglib2.0-dev]=/usr/include/glib-2.0/glib.h
  [lua-luv]=/usr/lib/x86_64-linux-gnu/lua/5.4/luv.so
  [lua-cqueues]=/usr/share/lua/5.4/cqueues.lua
)

missing=()
for package in "${!probe[@]}"; do
  [ -e "${probe[$package]}" ] || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

command -v swift >/dev/null || sb_die "swift is not on PATH; install a Swift 6 toolchain first"
command -v apt-get >/dev/null || sb_die "missing packages: ${missing[*]} (no apt-get here: install them by hand)"

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || sb_die "missing packages: ${missing[*]}; run as root or install sudo"
  sudo=sudo
fi
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
# luarocks brings lua5.1, whose alternative then wins /usr/bin/lua; busted
# starts with `lua`, and this project's Lua is 5.4.
if [[ " ${missing[*]} " == *" luarocks "* ]] && [ -x /usr/bin/lua5.4 ]; then
  $sudo update-alternatives --set lua-interpreter /usr/bin/lua5.4 >/dev/null
fi
