-- Swallows the memory limit with pcall; raises an error of 1 MiB.
scenario("swallows the memory limit", function()
  local ok, err = pcall(function() local b = {} for i = 1, 300 do b[i] = string.rep("y", (1 << 20) + i) end end)
  print("swallowed", ok, err)
end)
scenario("raises 1 MiB", function() error(string.rep("m", 1 << 20), 0) end)
