-- Many C calls that each run long between VM instructions: the timeout
-- must still stop it (the watchdog nudges the hook at the deadline).
scenario("loops over slow C calls", function()
  while true do local _ = string.rep("x", 1 << 22) end
end)
scenario("runs after it", function() end)
