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

# Runs a step and records its outcome for the summary; stops at the first
# failure. A step that runs past SB_STEP_LIMIT seconds (1,500 by default, a
# few times the slowest step) is taken for hung: its processes' tree and
# their threads' backtraces go to stderr and the step fails, so a hang shows
# where it is instead of running the whole run into CI's own limit. A step
# runs with /dev/null as its standard input (a background job's).
SB_STEPS_PASSED=()
SB_STEP_LIMIT=${SB_STEP_LIMIT:-1500}
sb_run() {
  local name="$1"; shift
  sb_step "$name"
  local start=$SECONDS status=0 step watchdog
  "$@" &
  step=$!
  sb_watchdog "$step" "$SB_STEP_LIMIT" &
  watchdog=$!
  wait "$step" || status=$?
  kill "$watchdog" 2> /dev/null || true
  wait "$watchdog" 2> /dev/null || true
  if [ "$status" = 0 ]; then
    SB_STEPS_PASSED+=("$name ($((SECONDS - start))s)")
  else
    printf '\nFAILED: %s (exit %d)\n' "$name" "$status" >&2
    exit "$status"
  fi
}

# The processes below PID, children before grandchildren.
sb_descendants() {
  ps -e -o pid= -o ppid= | awk -v root="$1" '
    { parent[$1] = $2 }
    END {
      want[root] = 1
      do { grew = 0
        for (p in parent) if (!(p in want) && (parent[p] in want)) { want[p] = 1; grew = 1; print p }
      } while (grew)
    }'
}

# Waits LIMIT seconds for PID; if it still runs, reports and ends it.
sb_watchdog() {
  local pid=$1 limit=$2 waited=0 p
  while [ "$waited" -lt "$limit" ]; do
    sleep 5; waited=$((waited + 5))
    kill -0 "$pid" 2> /dev/null || return 0
  done
  local all; all=$(sb_descendants "$pid")
  {
    printf '\nerror: this step ran past %d s (SB_STEP_LIMIT): taken for hung. Its processes:\n' "$limit"
    # shellcheck disable=SC2086
    ps -o pid,ppid,etime,stat,wchan:20,args -p "$pid" $all 2> /dev/null || true
    for p in $all; do
      case "$(ps -o comm= -p "$p" 2> /dev/null)" in bash|sh|make|sleep|timeout|"") continue ;; esac
      printf '\n--- backtraces of %s\n' "$(ps -o pid=,args= -p "$p" 2> /dev/null | cut -c1-200)"
      timeout 60 gdb -p "$p" -batch -ex 'thread apply all bt 30' 2>&1 | grep -E '^(Thread|#)' | head -200 || true
    done
  } >&2
  # shellcheck disable=SC2086
  kill -TERM "$pid" $all 2> /dev/null || true
  sleep 5
  # shellcheck disable=SC2086
  kill -KILL "$pid" $all 2> /dev/null || true
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
