# switchboard call --lookup and --build, and URL patterns, converters and an
# unmatched-URL fallback from a --setup file (issue 41).
setup=$SB_ROOT/$scenarios/url_routing_setup.lua

# answers STATUS TEXT ARGS...: `switchboard ARGS`, run in the examples'
# folder, exits STATUS and prints TEXT (on stdout or stderr).
answers() {
  local want=$1 text=$2 status=0
  shift 2
  (cd "$examples" && "$sb" "$@") > "$work/answer.out" 2>&1 || status=$?
  [ "$status" = "$want" ] && grep -qF -- "$text" "$work/answer.out" && return
  echo "exit $status, expected $want and: $text"
  cat "$work/answer.out"
  return 1
}

# switchboard call --lookup
check "call --lookup: a URL for targets" answers 0 '"kind":"targets","scheme":"app","target":"A","action":"cell"' \
  call --plugin ./module_a.so --lookup 'app://A/cell?identifier=Row'
check "call --lookup: a pattern, with the router's keys" answers 0 '"pattern":"shop://item/<int:id>"' \
  call --setup "$setup" --lookup 'shop://item/7'
check "call --lookup: the fallback, a handler" answers 0 '"kind":"fallback","scheme":"shop","handler":true' \
  call --setup "$setup" --lookup 'shop://nothing'
check "call --lookup: a lookup calls nothing: the native rule refuses quietly" answers 1 'EREJECTED' \
  call --plugin ./module_a.so --lookup 'app://A/nativeSecret'
check "call --lookup: --lookup takes one URL" answers 64 '--lookup takes one URL' call --lookup A cell

# switchboard call --build
check "call --build: placeholders filled and encoded, the rest as the query" answers 0 'app://user/42?tab=a%20b' \
  call --build 'app://user/<int:id>' '{"id": 42, "tab": "a b"}'
check "call --build: a missing value" answers 1 'EPARAMS: pattern "app://user/<int:id>" needs a value for "id"' \
  call --build 'app://user/<int:id>'
check "call --build: a mistyped value" answers 1 'needs an int, not the string "42"' call --build 'app://user/<int:id>' '{"id": "42"}'
check "call --build: a converter of the setup decides" answers 1 'the converter "greeting" declines' \
  call --setup "$setup" --build 'shop://hello/<greeting:name>' '{"name": "nobody"}'
check "call --build: params that are not a JSON object: a usage error" answers 64 'the params must be a JSON object' \
  call --build 'app://user/<int:id>' '[42]'
check "call --build: --build takes a pattern" answers 64 '--build takes a URL pattern' call --build A cell
check "call --build: --lookup and --build" answers 64 'do not go together' call --lookup --build 'app://x'

# switchboard call with patterns, a converter and a fallback from --setup
check "call --setup: a converter's value" answers 0 '"Hello, devxoul!"' call --setup "$setup" 'shop://hello/devxoul'
check "call --setup: a converter that declines, then the fallback" answers 0 '"no page for shop://hello/nobody"' \
  call --setup "$setup" 'shop://hello/nobody'
check "call --setup: the router's keys" answers 0 '"pattern":"shop://item/<int:id>"' call --setup "$setup" 'shop://item/7'
check "call --setup: no query sets a router key" answers 1 'EREJECTED' call --setup "$setup" 'shop://item/7?switchboard.pattern=x'
check "call --setup: a dot segment routes nowhere but the fallback" answers 0 '"no page for shop://item/../7"' \
  call --setup "$setup" 'shop://item/../7'
check "call --setup: JLRoutes' optional groups at the start" answers 0 '"aaa/bbb"' call --setup "$setup" 'foo://rest/app/aaa/bbb'
check "call --setup: a miss names the nearest patterns" answers 1 'no pattern of the scheme "foo" matches' \
  call --setup "$setup" 'foo://a/b/c/d/e'
check "call --setup: routes lists fallbacks and converters" answers 0 'shop://  ->  handler' routes --setup "$setup"
check "call --setup: routes lists converters" answers 0 'URL converters (1): greeting' routes --setup "$setup"
