-- What answered a call that succeeded, for --trace (and so for `switchboard
-- graph`): the action it named, the target's notFound, or NoTargetAction's
-- response. The observer's event names the call as it was made, not what
-- answered it, so this asks the mediator what it lists (sb.routes): the
-- scenario's own mediator, which knows the targets the script registered,
-- as a catalogue of the plugins alone could not. Part of the scenario API:
-- exports answered_by.
local api = ...
local sb = sb
local ipairs, pcall = ipairs, pcall
local routes = sb.routes

-- target name -> set of its action names, as last listed. Listed again only
-- when a call names a target or an action the last listing did not have (a
-- fallback, or a target met for the first time), so a run of calls to
-- known actions lists once.
local listed = nil

local function list()
  local ok, catalogue = pcall(routes)
  if not ok then return false end
  listed = {}
  for _, t in ipairs(catalogue.targets) do
    local actions = {}
    for _, name in ipairs(t.actions) do actions[name] = true end
    listed[t.name] = actions
  end
  return true
end

local function has(target, action)
  local actions = listed and listed[target]
  return actions ~= nil and actions[action] == true
end

-- nil when `target`'s own `action` answered (or nothing can be told: the
-- listing failed); "notFound" when the target's notFound did;
-- "NoTargetAction" when its response did; "other" when the target has
-- neither and NoTargetAction is not there (a rule or the degrade handler:
-- not told apart). A target whose actions change during a call (one
-- unregistered, then answered by notFound) may be told as its own action.
local function answered_by(target, action)
  if has(target, action) then return nil end
  if not list() or has(target, action) then return nil end
  if has(target, "notFound") then return "notFound" end
  if has("NoTargetAction", "response") then return "NoTargetAction" end
  return "other"
end

api.answered_by = answered_by
