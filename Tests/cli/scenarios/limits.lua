-- Each limit stops its offender; the scenario after them still runs.
scenario("loops forever", function()
  while true do end
end)

scenario("swallows the limit with pcall and loops on", function()
  while true do pcall(function() while true do end end) end
end)

scenario("allocates without end", function()
  local t = {}
  for i = 1, math.maxinteger do t[i] = string.rep("x", 64) .. i end
end)

scenario("swallows the memory error and allocates on", function()
  local hog = {}
  while true do
    pcall(function() for i = 1, math.maxinteger do hog[#hog + 1] = string.rep("y", 64) .. i end end)
  end
end)

scenario("runs after the limits", function()
  expect(sb.perform("A", "nativeNoImage")).to_succeed()
end)
