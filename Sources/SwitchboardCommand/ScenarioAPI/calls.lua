-- sb.perform and sb.open as scripts (and Lua targets) call them: the same
-- functions, which also note how the last call ended, so that
-- `local r = sb.perform(...); expect(r)` can tell why r is nil. Part of
-- the scenario API: exports last_failure and forget_calls.
local api = ...
local sb = sb
local select = select
local perform, open = sb.perform, sb.open

-- The last call made through these: false when it succeeded, else
-- {call = "A.x", message, code}. Each scenario starts with none.
local last = false

local function note(target, action, result, ...)
  if result == nil and select("#", ...) >= 2 then
    local message, code = ...
    last = { call = action and (target .. "." .. action) or ("open " .. target), message = message, code = code }
  else
    last = false
  end
  return result, ...
end

sb.perform = function(...)
  local target, action = ...
  return note(target, action, perform(...))
end

sb.open = function(...)
  return note((...), nil, open(...))
end

function api.last_failure() return last or nil end
function api.forget_calls() last = false end
