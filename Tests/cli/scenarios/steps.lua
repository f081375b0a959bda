-- A step name over the limit, and 3,000 steps.
scenario("names a step with 1025 bytes", function() step(string.rep("s", 1025), function() end) end)
scenario("runs 3,000 steps", function()
  for i = 1, 3000 do step("step " .. i, function() end) end
  error("after the steps")
end)
