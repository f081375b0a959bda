# switchboard gen, and what routes and --coverage-json say of async actions.
check "gen writes one file per target with contracts, in each language" bash -c "
  for lang in swift c lua; do '$sb' gen --lang \$lang ${load[*]} -o '$work/gen/'\$lang || exit 1; done
  test -f '$work/gen/swift/Mediator+A.swift' && test -f '$work/gen/c/sb_a.h' && test -f '$work/gen/lua/sb_a.lua' &&
  ! test -e '$work/gen/c/sb_settings.h' &&
  grep -q 'func a_showAlert(message: String' '$work/gen/swift/Mediator+A.swift' &&
  grep -q 'sb_a_show_alert(sb_mediator \*m, const char \*message' '$work/gen/c/sb_a.h'"
check "gen reads a catalogue from a file and from standard input" bash -c "
  '$sb' routes ${load[*]} --json > '$work/catalogue.json' &&
  '$sb' gen --lang lua --catalogue '$work/catalogue.json' -o '$work/gen/file' > /dev/null &&
  '$sb' gen --lang lua --catalogue - -o '$work/gen/stdin' < '$work/catalogue.json' > /dev/null &&
  cmp '$work/gen/file/sb_a.lua' '$work/gen/lua/sb_a.lua' && cmp '$work/gen/stdin/sb_a.lua' '$work/gen/lua/sb_a.lua'"
# gen_fails PATTERN ARGS...: gen exits 64 or 1 with PATTERN in its message, and writes nothing.
gen_fails() {
  local pattern=$1; shift
  rm -rf "$work/gen/none"
  if "$sb" gen "$@" -o "$work/gen/none" > "$work/gen.out" 2>&1; then echo "gen succeeded"; return 1; fi
  grep -q -- "$pattern" "$work/gen.out" || { cat "$work/gen.out"; return 1; }
  ! test -e "$work/gen/none"
}
check "gen refuses an unknown language" gen_fails "lang" --lang go "${load[@]}"
check "gen refuses a target that is not loaded" gen_fails "no target named Nope" --lang c --target Nope "${load[@]}"
check "gen refuses a target without contracts" gen_fails "Settings has no action with a contract" --lang c --target Settings "${load[@]}"
# Catalogues written by hand: a type outside the nine, two targets that share a file name.
echo '{"targets":[{"name":"T","actions":["a"],"contracts":{"a":{"params":[{"name":"p","type":"int\" }, os.exit(1) --","required":false}]}}}]}' > "$work/badtype.json"
echo '{"targets":[{"name":"Ab","actions":["a"],"contracts":{"a":{"params":[]}}},{"name":"AB","actions":["a"],"contracts":{"a":{"params":[]}}}]}' > "$work/clash.json"
check "gen refuses a type it does not know" gen_fails "unknown type" --lang lua --catalogue "$work/badtype.json"
check "gen refuses two targets that would write one file" gen_fails "would both be written to sb_ab.h" --lang c --catalogue "$work/clash.json"
echo '{"targets":[{"name":"dict","actions":["new","size"],"contracts":{"new":{"params":[]},"size":{"params":[]}}}]}' > "$work/dict.json"
check "gen keeps a C wrapper off the names switchboard.h uses (target dict, action new)" bash -c "
  '$sb' gen --lang c --catalogue '$work/dict.json' -o '$work/gen/dict' > /dev/null &&
  grep -q 'sb_dict_new_(sb_mediator' '$work/gen/dict/sb_dict.h' && grep -q 'sb_dict_size(sb_mediator' '$work/gen/dict/sb_dict.h' &&
  echo '#include \"sb_dict.h\"' | cc -std=c99 -Wall -Wextra -Werror -pedantic -fsyntax-only -I '$SB_ROOT/include' -I '$work/gen/dict' -x c -"
# An action that answers later: named under "async" (a Swift async closure) or by its contract's "async".
echo '{"targets":[{"name":"Feed","actions":["fetch","peek","now"],"async":["fetch"],"contracts":{"fetch":{"params":[{"name":"id","type":"int","required":true}],"result":"dict"},"peek":{"params":[],"result":"any","async":true},"now":{"params":[]}}}]}' > "$work/async.json"
check "gen writes wrappers that do not wait for async actions (Swift async, C over sb_action_perform_async)" bash -c "
  for lang in swift c lua; do '$sb' gen --lang \$lang --catalogue '$work/async.json' -o '$work/gen/async' > /dev/null || exit 1; done
  grep -q 'func feed_fetch(id: Int,\$' '$work/gen/async/Mediator+Feed.swift' &&
  grep -q '^ *options: CallOptions = .none) async throws(SwitchboardError) -> Value.Dict {\$' '$work/gen/async/Mediator+Feed.swift' &&
  grep -q 'let result = try await call(target: \"Feed\", action: \"fetch\", params: params, options: options)' '$work/gen/async/Mediator+Feed.swift' &&
  grep -q 'func feed_peek(options: CallOptions = .none) async throws' '$work/gen/async/Mediator+Feed.swift' &&
  grep -q 'func feed_now(cacheTarget: Bool = false) throws(SwitchboardError)' '$work/gen/async/Mediator+Feed.swift' &&
  grep -q 'sb_feed_fetch(sb_mediator \*m, int64_t id, const sb_call_options \*options,\$' '$work/gen/async/sb_feed.h' &&
  [ \$(grep -c '^ *sb_done_fn done, void \*userdata) {\$' '$work/gen/async/sb_feed.h') = 2 ] &&
  grep -q 'sb_feed_now(sb_mediator \*m, unsigned flags, sb_value \*\*out)' '$work/gen/async/sb_feed.h' &&
  [ \$(grep -c 'sb_action_perform_async(m, ' '$work/gen/async/sb_feed.h') = 2 ] &&
  grep -q 'async: it answers later' '$work/gen/async/sb_feed.lua' &&
  echo '#include \"sb_feed.h\"' | cc -std=c99 -Wall -Wextra -Werror -pedantic -fsyntax-only -I '$SB_ROOT/include' -I '$work/gen/async' -x c -"
check "routes marks the actions that answer later" bash -c "
  cc -std=c99 -Wall -Wextra -Werror -pedantic -shared -fPIC -I '$SB_ROOT/include' '$SB_ROOT/Tests/c/plugins/typed_plugin.c' -o '$work/typed_plugin.so' &&
  '$sb' routes --plugin '$work/typed_plugin.so' > '$work/routes-async.txt' 2> /dev/null || exit 1
  grep -q '^    later(n: int) -> string  \\[async: answers later\\]\$' '$work/routes-async.txt' &&
  grep -q '^    laterAny()  \\[async: answers later\\]\$' '$work/routes-async.txt' &&
  ! grep -q 'finishLater.*async' '$work/routes-async.txt' &&
  '$sb' routes --plugin '$work/typed_plugin.so' --json | $py -c '
import json, sys
t = next(t for t in json.load(sys.stdin)[\"targets\"] if t[\"name\"] == \"Typed\")
assert t[\"async\"] == [\"later\", \"laterAny\"], t[\"async\"]
assert t[\"contracts\"][\"later\"][\"async\"] is True and \"async\" not in t[\"contracts\"][\"secret\"], t'"
printf 'scenario("calls one action", function()\n  expect(sb.perform("Typed", "countKeys", { a = 1 })).to_equal(1)\nend)\n' > "$work/typed_scenario.lua"
check "run --coverage-json says which actions answer later" bash -c "
  '$sb' run --plugin '$work/typed_plugin.so' --coverage --coverage-json '$work/typed_coverage.json' '$work/typed_scenario.lua' > /dev/null &&
  $py -c '
import json, sys
data = json.load(open(sys.argv[1]))
later = sorted(a[\"action\"] for a in data[\"actions\"] if a.get(\"async\"))
assert later == [\"later\", \"laterAny\"], data
assert all(a[\"async\"] is True for a in data[\"actions\"] if \"async\" in a), data
assert [a[\"status\"] for a in data[\"actions\"] if a[\"action\"] == \"countKeys\"] == [\"called\"], data' '$work/typed_coverage.json'"
check "gen refuses a catalogue that is not JSON" bash -c "echo '{' > '$work/bad.json'; $(declare -f gen_fails); work='$work' sb='$sb' gen_fails 'bad.json' --lang c --catalogue '$work/bad.json'"
