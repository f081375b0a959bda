#!/usr/bin/env bash
# docs/lua.md is the Lua module's complete reference: every name the built
# module exports has an entry `### sb.<name>` there, every such entry names
# something the module has, and each entry's Lua example at least compiles
# (scripts/check-samples.sh runs them). Each entry has luv's shape: its forms
# on the first line (`sb.name(a [, b])`); for a function, a **Parameters:**
# list naming every parameter of its forms and a **Returns:** line; for a
# field, a **Type:** line.
# Needs scripts/build.sh first (the staged module).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

module="$SB_ROOT/.build/dist/lib/lua/5.4/switchboard.so"
[ -f "$module" ] || sb_die "no staged Lua module; run scripts/build.sh"

# check DOC: the check itself, on DOC.
check() {
LUA_CPATH="$SB_ROOT/.build/dist/lib/lua/5.4/?.so" lua5.4 - "$1" <<'LUA'
local sb = require "switchboard"
local doc_path = arg[1]
local exported = {}
for name in pairs(sb) do exported[name] = true end

-- The entries: `### sb.<name>` headings, each with the text up to the next heading.
local documented, order, current = {}, {}, nil
local in_code, code = false, nil
for line in io.lines(doc_path) do
  if line:match("^```") then
    if in_code then
      if current and code then table.insert(documented[current].examples, table.concat(code, "\n")) end
      in_code, code = false, nil
    else
      in_code = true
      code = line:match("^```lua") and {} or nil
    end
  elseif in_code then
    if code then code[#code + 1] = line end
  elseif line:match("^#+ ") then
    current = line:match("^### sb%.([%a_][%w_]*)%s*$")
    if current then
      if documented[current] then error("docs/lua.md documents sb." .. current .. " twice") end
      documented[current] = { examples = {}, lines = {} }
      order[#order + 1] = current
    end
  elseif current then
    table.insert(documented[current].lines, line)
  end
end

local problems = {}
local function problem(text) problems[#problems + 1] = text end
local names = {}
for name in pairs(exported) do names[#names + 1] = name end
table.sort(names)
for _, name in ipairs(names) do
  if not documented[name] then problem("sb." .. name .. " is exported but has no `### sb." .. name .. "` entry") end
end
for _, name in ipairs(order) do
  if not exported[name] then problem("`### sb." .. name .. "` documents a name the module does not export") end
  local examples = documented[name].examples
  if #examples == 0 then problem("sb." .. name .. " has no ```lua example") end
  -- luv's shape: the forms first, then what each parameter is and what it returns.
  local lines, forms = documented[name].lines, nil
  for _, line in ipairs(lines) do
    if line:match("%S") then forms = line; break end
  end
  local params, bullets, has = {}, {}, {}
  for _, line in ipairs(lines) do
    for field in ("Parameters Returns Type"):gmatch("%a+") do
      if line:match("^%*%*" .. field .. ":%*%*") then has[field] = true end
    end
    local names = line:match("^%- (`[^:]+`):")
    if names then for p in names:gmatch("`([%a_][%w_]*)`") do bullets[p] = true end end
  end
  -- An old name kept for 1.x scripts: "**Alias of:** `sb.new`", the very same value.
  local alias
  for _, line in ipairs(lines) do alias = alias or line:match("^%*%*Alias of:%*%* `sb%.([%a_][%w_]*)`") end
  if not forms or not forms:match("^`sb%." .. name .. "[`(]") then
    problem("sb." .. name .. ": the entry does not start with its forms (`sb." .. name .. "(...)`)")
  elseif alias then
    if not documented[alias] then problem("sb." .. name .. " is an alias of sb." .. alias .. ", which has no entry") end
    if not rawequal(sb[name], sb[alias]) then problem("sb." .. name .. " is not the same value as sb." .. alias) end
  elseif type(sb[name]) == "function" then
    for args in forms:gmatch("`sb%." .. name .. "(%b())`") do
      for p in args:gmatch("[%a_][%w_]*") do
        if p ~= "nil" and p ~= "false" and p ~= "true" then params[p] = true end
      end
    end
    for p in pairs(params) do
      if not bullets[p] then problem("sb." .. name .. ": parameter `" .. p .. "` is not under **Parameters:**") end
    end
    if next(params) and not has.Parameters then problem("sb." .. name .. " has no **Parameters:** list") end
    if not has.Returns then problem("sb." .. name .. " has no **Returns:** line") end
  elseif not has.Type then
    problem("sb." .. name .. " (a " .. type(sb[name]) .. ") has no **Type:** line")
  end
  for _, text in ipairs(examples) do
    local ok, err = load(text, "=sb." .. name .. " example")
    if not ok then problem(err) end
  end
end
if #problems > 0 then
  for _, text in ipairs(problems) do io.stderr:write("docs/lua.md: ", text, "\n") end
  os.exit(1)
end
print(string.format("docs/lua.md documents all %d names of the module, each with its forms, parameters, returns (or type) and an example", #order))
LUA
}

check docs/lua.md
# The check fails when it should: an entry missing, one for a name the module
# lacks, an entry without an example, an example that does not compile.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed 's/^### sb\.poll$/### sb.pol/' docs/lua.md > "$work/renamed.md"
awk '/^### sb\.routes$/ { skip = 1; next } /^### / { skip = 0 } !skip' docs/lua.md > "$work/missing.md"
awk '/^### sb\.array$/ { skip = 1 } skip && /^```/ { next } { print }' docs/lua.md > "$work/unfenced.md"
sed '/^### sb\.version$/,/^```$/ s/^```lua$/```lua\nprint("x"/' docs/lua.md > "$work/broken.md"
awk '/^### sb\.remove_url_pattern$/ { on = 1 } on && /^\*\*Returns:\*\*/ { on = 0; next } { print }' docs/lua.md > "$work/noreturns.md"
awk '/^### sb\.sign_url$/ { on = 1 } on && /^- `expires`:/ { on = 0; next } { print }' docs/lua.md > "$work/noparam.md"
sed 's/^\*\*Alias of:\*\* `sb\.evict`/**Alias of:** `sb.perform`/' docs/lua.md > "$work/aliased.md"
for doc in renamed missing unfenced broken noreturns noparam aliased; do
  if check "$work/$doc.md" > "$work/$doc.out" 2>&1; then
    sb_die "the reference check passed a doctored docs/lua.md ($doc)"
  fi
done
grep -q 'sb.poll is exported but has no' "$work/renamed.out" && grep -q 'sb.pol. documents a name' "$work/renamed.out" \
  && grep -q 'sb.routes is exported' "$work/missing.out" && grep -q 'sb.array has no' "$work/unfenced.out" \
  && grep -q 'sb.version example' "$work/broken.out" \
  && grep -q 'sb.remove_url_pattern has no \*\*Returns:\*\* line' "$work/noreturns.out" \
  && grep -q 'sb.sign_url: parameter `expires` is not under' "$work/noparam.out" \
  && grep -q 'sb.release is not the same value as sb.perform' "$work/aliased.out" \
  || sb_die "the reference check failed a doctored docs/lua.md for the wrong reason"
echo "the check refuses a doctored reference (a name missing, renamed, without an example, a broken example," \
  "without its returns, a parameter left out, an alias that is another function)"
