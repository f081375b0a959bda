-- --coverage: what each scenario called. Part of the scenario API: exports
-- coverage_lines (nil without --coverage).
local api, helpers = ...
local sb = sb
local ipairs, pairs = ipairs, pairs
local format, gsub, match, byte = string.format, string.gsub, string.match, string.byte
local concat, sort = table.concat, table.sort
local state = api.state

-- What a scenario called, told apart at its end by what its mediator knew
-- then: a known target's listed action was called; a call that succeeded
-- though its action was not listed was answered by the target's notFound,
-- or, failing that (or for a target not known), by NoTargetAction. (The
-- rules and the degrade handler answer too; they are not told apart.)
local called = nil -- "target\taction" -> true when one such call succeeded

if helpers.coverage then
  called = {}
  sb.observe(function(event)
    if event.phase ~= "end" or not state.running or not event.target or not event.action then return end
    local key = event.target .. "\t" .. event.action
    called[key] = called[key] or not event.code
  end)
end

-- A name in a line of the report: tabs, newlines, any control byte, % and
-- every byte past ASCII as %XX, so that no name can split a line or a field
-- and its bytes come back as they are (the runner decodes).
local function field(name)
  return (gsub(name, "[%%%c\128-\255]", function(c) return format("%%%02X", byte(c)) end))
end

local function coverage_lines()
  local known, fixtures = {}, {}
  for _, t in ipairs(sb.routes().targets) do
    local actions = {}
    for _, name in ipairs(t.actions) do actions[name] = true end
    known[t.name] = actions
    fixtures[t.name] = t.origin == "registered" -- the script's own (sb.target): not counted
  end
  local lines, seen = {}, {}
  local function add(how, target, action)
    if fixtures[target] then return end
    local line = how .. "\t" .. field(target) .. "\t" .. field(action)
    if not seen[line] then seen[line], lines[#lines + 1] = true, line end
  end
  for key, succeeded in pairs(called) do
    local target, action = match(key, "^(.-)\t(.*)$")
    local actions = known[target]
    if actions and actions[action] then
      add("called", target, action)
    elseif succeeded and actions and actions.notFound then
      add("fallback", target, "notFound")
    elseif succeeded then
      add("fallback", "NoTargetAction", "response")
    end
  end
  sort(lines)
  return concat(lines, "\n")
end

if called then api.coverage_lines = coverage_lines end
