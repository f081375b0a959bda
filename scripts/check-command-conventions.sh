#!/usr/bin/env bash
# The switchboard command keeps the command-line conventions its manual
# states (issue 44): exit 64 for a usage error found before anything runs
# (here: `call` params that are not a JSON object), 1 for a call that
# failed, 0 for one that succeeded; --help names the folder the command is
# installed in, or says PREFIX when it runs from a build folder (the manual
# pages are made from there, and scripts/install.sh writes the prefix into
# them); the shell completions are made. scripts/check-install.sh checks the
# installed pages and completions.
#
# Needs scripts/build.sh first.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

dist="$SB_ROOT/.build/dist"
sb="$dist/bin/switchboard"
[ -x "$sb" ] || sb_die "no $sb: run scripts/build.sh first"
examples="$dist/share/switchboard/examples"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect_exit CODE TEXT ARGS...: `switchboard call ARGS` exits CODE and says TEXT.
expect_exit() {
  local want=$1 text=$2 status=0
  shift 2
  (cd "$examples" && "$sb" call --plugin ./module_a.so "$@") > "$tmp/out" 2>&1 || status=$?
  [ "$status" = "$want" ] || { cat "$tmp/out"; sb_die "switchboard call $* exited $status, not $want"; }
  grep -qF -- "$text" "$tmp/out" || { cat "$tmp/out"; sb_die "switchboard call $* did not say: $text"; }
}
expect_exit 64 'the params are not JSON' A cell '{"identifier": '
expect_exit 64 'the params must be a JSON object' A cell '[1, 2]'
expect_exit 64 'the params must be a JSON object' A cell '"Row"'
expect_exit 1 'ENOTARGET' Nobody cell '{}'
expect_exit 0 '"cell":"cell 1"' A cell '{"identifier": "Row"}'

# --help: the staged command names its own folder; a build folder's says PREFIX.
help=$("$sb" --help)
if grep -q 'PREFIX/' <<< "$help"; then sb_die "the staged switchboard --help prints PREFIX/: $help"; fi
grep -qF "from $examples" <<< "$help" || sb_die "the staged switchboard --help does not name $examples: $help"
"$sb" help call | grep -qF "from $examples" || sb_die "switchboard help call does not name $examples"
.build/release/switchboard-cli --help | grep -qF 'from PREFIX/share/switchboard/examples' \
  || sb_die "the build folder's command does not say PREFIX/share/switchboard/examples (the manual needs it)"

# The completions scripts/build.sh made name every subcommand.
for f in bash-completion/completions/switchboard zsh/site-functions/_switchboard fish/vendor_completions.d/switchboard.fish; do
  for word in run call replay routes gen graph; do
    grep -qw "$word" "$dist/share/$f" || sb_die "$dist/share/$f does not complete $word"
  done
done

echo "switchboard call: 64 for params that are not a JSON object (3 cases), 1 for a failed call, 0 for a result;" \
  "--help names the folder it is installed in; bash, zsh and fish completions made"
