#!/usr/bin/env bash
# `switchboard call` and `switchboard routes` with the URL router's 1.1
# features (issue 41): --lookup, --build, and patterns, converters and an
# unmatched-URL fallback from a --setup file. A small test of its own, run by
# scripts/test.sh (Tests/cli has no runner yet: when it has one, this file
# is one of its tests). Needs scripts/build.sh first.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sb=$root/.build/dist/bin/switchboard
examples=$root/.build/dist/share/switchboard/examples
setup=$root/Tests/cli/url-routing/setup.lua
[ -x "$sb" ] || { echo "no $sb: run scripts/build.sh first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

failures=0
# expect NAME STATUS TEXT -- ARGS...: `switchboard ARGS` exits STATUS and prints TEXT (stdout or stderr).
expect() {
  local name=$1 want=$2 text=$3 status=0
  shift 4
  (cd "$examples" && "$sb" "$@") > "$work/out" 2>&1 || status=$?
  if [ "$status" = "$want" ] && grep -qF -- "$text" "$work/out"; then
    echo "  ok: $name"
  else
    echo "  FAILED: $name (exit $status, expected $want and: $text)"
    sed 's/^/    | /' "$work/out" | head -20
    failures=$((failures + 1))
  fi
}

echo "switchboard call --lookup"
expect "a URL for targets" 0 '"kind":"targets","scheme":"app","target":"A","action":"cell"' -- \
  call --plugin ./module_a.so --lookup 'app://A/cell?identifier=Row'
expect "a pattern, with the router's keys" 0 '"pattern":"shop://item/<int:id>"' -- \
  call --setup "$setup" --lookup 'shop://item/7'
expect "the fallback, a handler" 0 '"kind":"fallback","scheme":"shop","handler":true' -- \
  call --setup "$setup" --lookup 'shop://nothing'
expect "a lookup calls nothing: the native rule refuses quietly" 1 'EREJECTED' -- \
  call --plugin ./module_a.so --lookup 'app://A/nativeSecret'
expect "--lookup takes one URL" 64 '--lookup takes one URL' -- call --lookup A cell

echo "switchboard call --build"
expect "placeholders filled and encoded, the rest as the query" 0 'app://user/42?tab=a%20b' -- \
  call --build 'app://user/<int:id>' '{"id": 42, "tab": "a b"}'
expect "a missing value" 1 'EPARAMS: pattern "app://user/<int:id>" needs a value for "id"' -- \
  call --build 'app://user/<int:id>'
expect "a mistyped value" 1 'needs an int, not the string "42"' -- call --build 'app://user/<int:id>' '{"id": "42"}'
expect "a converter of the setup decides" 1 'the converter "greeting" declines' -- \
  call --setup "$setup" --build 'shop://hello/<greeting:name>' '{"name": "nobody"}'
expect "params that are not a JSON object: a usage error" 64 'the params must be a JSON object' -- \
  call --build 'app://user/<int:id>' '[42]'
expect "--build takes a pattern" 64 '--build takes a URL pattern' -- call --build A cell
expect "--lookup and --build" 64 'do not go together' -- call --lookup --build 'app://x'

echo "switchboard call with patterns, a converter and a fallback from --setup"
expect "a converter's value" 0 '"Hello, devxoul!"' -- call --setup "$setup" 'shop://hello/devxoul'
expect "a converter that declines, then the fallback" 0 '"no page for shop://hello/nobody"' -- \
  call --setup "$setup" 'shop://hello/nobody'
expect "the router's keys" 0 '"pattern":"shop://item/<int:id>"' -- call --setup "$setup" 'shop://item/7'
expect "no query sets a router key" 1 'EREJECTED' -- call --setup "$setup" 'shop://item/7?switchboard.pattern=x'
expect "a dot segment routes nowhere but the fallback" 0 '"no page for shop://item/../7"' -- \
  call --setup "$setup" 'shop://item/../7'
expect "JLRoutes' optional groups at the start" 0 '"aaa/bbb"' -- call --setup "$setup" 'foo://rest/app/aaa/bbb'
expect "a miss names the nearest patterns" 1 'no pattern of the scheme "foo" matches' -- \
  call --setup "$setup" 'foo://a/b/c/d/e'
expect "routes lists fallbacks and converters" 0 'shop://  ->  handler' -- routes --setup "$setup"
expect "routes lists converters" 0 'URL converters (1): greeting' -- routes --setup "$setup"

if [ "$failures" -gt 0 ]; then
  echo "url-routing: $failures check(s) failed"
  exit 1
fi
echo "url-routing: every check passed"
