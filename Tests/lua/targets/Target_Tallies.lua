-- A file target with instances: the file returns a constructor, and each
-- instance is the table one call of it returns, closing over its own count.
_G.__tallies_made = 0 -- a test-only count of instances made

return function()
  _G.__tallies_made = _G.__tallies_made + 1
  local count = 0
  return {
    bump = function() count = count + 1; return count end,
    add = { params = "by: int", result = "int", fn = function(p) count = count + p.by; return count end },
  }
end
