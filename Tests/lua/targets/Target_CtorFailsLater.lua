-- A constructor that works once (when the file loads) and then raises, or
-- returns a non-table: the calls that need an instance fail with its message.
_G.__later_mode = "raise"
local made = 0
return function()
  made = made + 1
  if made > 1 then
    if _G.__later_mode == "raise" then error("out of instances") end
    return "not a table"
  end
  return { x = function() return made end }
end
