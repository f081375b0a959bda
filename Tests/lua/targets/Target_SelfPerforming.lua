-- Performs its own target while it loads (discovery_spec.lua): the search
-- for it is in progress, so it must not start again. Counted in globals;
-- past 50 loads it stops performing, so a failing run ends.
local sb = require "switchboard"
SELF_LOADS = (SELF_LOADS or 0) + 1
if SELF_LOADS <= 50 then
  local _, message, code = sb.perform("SelfPerforming", "x")
  SELF_NESTED = SELF_NESTED or { message = message, code = code }
end
return { x = function() return "loaded" end }
