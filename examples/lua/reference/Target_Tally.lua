-- Target_Tally.lua
return function()
  local count = 0                       -- this instance's state
  return {
    bump = function() count = count + 1; return count end,
    add = { params = "by: int", fn = function(p) count = count + p.by; return count end },
  }
end
