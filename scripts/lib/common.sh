# Shared helpers for scripts/*.sh. Source it; do not run it.

# Repository root, whatever the caller's working directory.
SB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# Prints a section header, so a long log reads as a list of steps (bold on a
# terminal, plain in logs).
if [ -t 1 ]; then SB_BOLD=$'\033[1m' SB_PLAIN=$'\033[0m'; else SB_BOLD='' SB_PLAIN=''; fi
sb_step() {
  printf '\n%s==> %s%s\n' "$SB_BOLD" "$*" "$SB_PLAIN"
}

sb_die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

# Runs a step and records its outcome for the summary; stops at the first failure.
SB_STEPS_PASSED=()
sb_run() {
  local name="$1"; shift
  sb_step "$name"
  local start=$SECONDS
  if "$@"; then
    SB_STEPS_PASSED+=("$name ($((SECONDS - start))s)")
  else
    local status=$?
    printf '\nFAILED: %s (exit %d)\n' "$name" "$status" >&2
    exit "$status"
  fi
}

sb_summary() {
  sb_step "All steps passed"
  local s
  for s in "${SB_STEPS_PASSED[@]}"; do printf '  ok  %s\n' "$s"; done
}

# The release build that is shipped (scripts/build.sh) and that other scripts
# share, so they never rebuild it with other flags. -static-stdlib: the
# library and the command carry their own Swift runtime. DWARF 4 everywhere:
# clang's default is DWARF 5, which Debian 12's valgrind 3.19 cannot read
# from the installed library's debug file. No clang-module breadcrumbs: by
# default each Swift file's debug info names the .pcm files of the C modules
# it imports (in .build/.../ModuleCache), and gdb complains of each one it
# cannot find on the user's machine. Source paths in the debug info start
# with SB_DEBUG_SOURCE_DIR, not with this checkout's folder (gdb: set
# substitute-path /usr/src/switchboard CHECKOUT; README, "Debugging").
SB_DEBUG_SOURCE_DIR=/usr/src/switchboard
SB_RELEASE_FLAGS=(-c release -Xswiftc -static-stdlib
  -Xcc -gdwarf-4 -Xcxx -gdwarf-4 -Xswiftc -dwarf-version=4
  -Xswiftc -Xfrontend -Xswiftc -no-clang-module-breadcrumbs
  -Xswiftc -debug-prefix-map -Xswiftc "$SB_ROOT=$SB_DEBUG_SOURCE_DIR"
  -Xcc "-fdebug-prefix-map=$SB_ROOT=$SB_DEBUG_SOURCE_DIR")
