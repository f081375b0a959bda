#!/usr/bin/env bash
# switchboard.h in every language it promises (after scripts/build.sh):
#
# - alone in a file, it compiles as C99 and C11, and as C++11 and C++17, with
#   -Wall -Wextra -Werror -pedantic, by gcc/g++ and by clang/clang++ (each one
#   that is installed; gcc and g++ are required);
# - Tests/cxx/header_test.cpp, built as C++11 and C++17 with the same flags
#   and linked against the staged library, runs and its checks pass.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

dist=.build/dist
[ -e "$dist/lib/libswitchboard.so" ] || sb_die "$dist/lib/libswitchboard.so is missing; run scripts/build.sh"
command -v gcc >/dev/null && command -v g++ >/dev/null || sb_die "gcc and g++ are needed (scripts/deps.sh)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
strict=(-Wall -Wextra -Werror -pedantic)

printf '#include <switchboard.h>\nint main(void) { return sb_version() == 0; }\n' > "$tmp/only.c"
compilers=(gcc g++)
for c in clang clang++; do command -v "$c" >/dev/null && compilers+=("$c"); done
checked=()
for compiler in "${compilers[@]}"; do
  case "$compiler" in
    *++) standards=(c++11 c++17) lang=c++ ;;
    *) standards=(c99 c11) lang=c ;;
  esac
  for std in "${standards[@]}"; do
    "$compiler" -x "$lang" -std="$std" "${strict[@]}" -fsyntax-only -I include "$tmp/only.c" \
      || sb_die "switchboard.h does not compile alone with $compiler -std=$std ${strict[*]}"
    checked+=("$compiler -std=$std")
  done
done

for std in c++11 c++17; do
  g++ -std="$std" "${strict[@]}" -I include Tests/cxx/header_test.cpp -L "$dist/lib" -lswitchboard \
    -Wl,-rpath,"$SB_ROOT/$dist/lib" -o "$tmp/header_test_$std"
  out=$("$tmp/header_test_$std") || sb_die "Tests/cxx/header_test.cpp (g++ -std=$std) failed: $out"
done
echo "switchboard.h compiles alone with ${#checked[@]} compiler/standard pairs (${checked[*]});" \
  "Tests/cxx/header_test.cpp ran as C++11 and C++17: $out"
