# switchboard call and switchboard routes.
check "call TARGET ACTION JSON prints the result as JSON" bash -c "
  [ \"\$('$sb' call ${load[*]} A nativeFetchDetailViewController '{\"key\": \"42\"}')\" = \
    '{\"page\":\"DemoModuleADetailViewController\",\"title\":\"42\"}' ]"
check "call URL goes through the URL entry" bash -c "
  '$sb' call ${load[*]} 'app://A/cell?identifier=Row' | grep -q '\"identifier\":\"Row\"'"
run refused call "${load[@]}" 'app://A/nativeNoImage'
check "a refused call exits 1 with the code on stderr" bash -c "
  [ \$(cat '$work/refused.status') = 1 ] && [ ! -s '$work/refused.tap' ] && grep -q 'EREJECTED' '$work/refused.err'"
run badjson call "${load[@]}" A nativeNoImage '{"a":'
check "params that are not JSON are a usage error (64) that says where" bash -c "
  [ \$(cat '$work/badjson.status') = 64 ] && grep -q 'line 1, column' '$work/badjson.err'"
run noplugin call --plugin "$work/none.so" A x
check "a plugin that is not there is a usage error (64) naming --plugin and the file" bash -c "
  [ \$(cat '$work/noplugin.status') = 64 ] && grep -q -- '--plugin $work/none.so: No such file' '$work/noplugin.err'"
check "routes --json lists the plugin's and the Lua targets, with where each came from" bash -c "
  '$sb' routes ${load[*]} --json | $py -c '
import json, sys
routes = json.load(sys.stdin)
names = sorted(t[\"name\"] for t in routes[\"targets\"])
assert names == [\"A\", \"Catalog\", \"Net\", \"Settings\"], names
origins = {t[\"name\"]: t[\"origin\"] for t in routes[\"targets\"]}
assert origins[\"A\"].startswith(\"plugin \") and origins[\"A\"].endswith(\"module_a.so\"), origins
assert origins[\"Settings\"] == \"Lua file $examples/targets/Target_Settings.lua\", origins
assert [s[\"scheme\"] for s in routes[\"schemes\"]] == [\"app\"]'"
check "routes prints each action's contract, with its params' docs" bash -c "
  '$sb' routes ${load[*]} > '$work/routes.txt' &&
  grep -q '^    nativePresentImage(image: string) -> dict\$' '$work/routes.txt' &&
  grep -q '^        image  the image to show\$' '$work/routes.txt' &&
  '$sb' routes ${load[*]} --json | $py -c '
import json, sys
a = next(t for t in json.load(sys.stdin)[\"targets\"] if t[\"name\"] == \"A\")
assert a[\"contracts\"][\"showAlert\"][\"params\"][0][\"name\"] == \"message\", a'"
printf 'sb.route("app://item/<int:sku>", "Catalog", "item")\n' > "$work/setup.lua"
check "--setup adds a route pattern that call and routes see" bash -c "
  '$sb' call ${load[*]} --setup '$work/setup.lua' 'app://item/7' | grep -q '\"sku\":7' &&
  '$sb' routes ${load[*]} --setup '$work/setup.lua' | grep -q 'app://item/<int:sku>  ->  Catalog/item'"
