#!/usr/bin/env bash
# docs/lua.md is the Lua module's complete reference: every name the built
# module exports has an entry `### sb.<name>` there, every such entry names
# something the module has, and each entry's Lua example at least compiles.
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
  local heading = line:match("^#+ ")
  if heading and not in_code then
    current = line:match("^### sb%.([%a_][%w_]*)%s*$")
    if current then
      if documented[current] then error("docs/lua.md documents sb." .. current .. " twice") end
      documented[current] = { examples = {} }
      order[#order + 1] = current
    end
  elseif line:match("^```") then
    if in_code then
      if current and code then table.insert(documented[current].examples, table.concat(code, "\n")) end
      in_code, code = false, nil
    else
      in_code = true
      code = line:match("^```lua") and {} or nil
    end
  elseif in_code and code then
    code[#code + 1] = line
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
  for _, text in ipairs(examples) do
    local ok, err = load(text, "=sb." .. name .. " example")
    if not ok then problem(err) end
  end
end
if #problems > 0 then
  for _, text in ipairs(problems) do io.stderr:write("docs/lua.md: ", text, "\n") end
  os.exit(1)
end
print(string.format("docs/lua.md documents all %d names of the module, each with an example", #order))
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
for doc in renamed missing unfenced broken; do
  if check "$work/$doc.md" > "$work/$doc.out" 2>&1; then
    sb_die "the reference check passed a doctored docs/lua.md ($doc)"
  fi
done
grep -q 'sb.poll is exported but has no' "$work/renamed.out" && grep -q 'sb.pol. documents a name' "$work/renamed.out" \
  && grep -q 'sb.routes is exported' "$work/missing.out" && grep -q 'sb.array has no' "$work/unfenced.out" \
  && grep -q 'sb.version example' "$work/broken.out" \
  || sb_die "the reference check failed a doctored docs/lua.md for the wrong reason"
echo "the check refuses a doctored reference (a name missing, renamed, without an example, a broken example)"
