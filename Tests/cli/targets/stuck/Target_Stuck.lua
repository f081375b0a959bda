-- A Lua target whose action is stuck in C (a pattern that backtracks for ever).
return {
  stuck = function() return string.find(string.rep("a", 40), string.rep("a*", 40) .. "b") end,
  fine = function() return 2 end,
}
