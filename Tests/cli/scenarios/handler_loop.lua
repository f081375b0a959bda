-- An xpcall message handler that never returns.
scenario("loops in its xpcall handler", function()
  xpcall(function() error("e") end, function() while true do end end)
end)
scenario("runs after it", function() end)
