-- Every way a scenario writes, 64 MiB each: all share the one output limit.
local MiB = string.rep("w", 1 << 20)
scenario("floods standard error", function()
  for _ = 1, 64 do io.stderr:write(MiB) end
end)
scenario("floods standard output by its handle", function()
  for _ = 1, 64 do io.stdout:write(MiB):write(1, 2.5) end
end)
scenario("prints, then writes to standard error", function()
  print(string.rep("p", 60 * 1024))
  for _ = 1, 16 do io.stderr:write(string.rep("e", 1024)) end
  print("past the limit")
end)
scenario("writes after them", function()
  io.stderr:write("still written\n")
  expect(function() io.stderr:write({}) end).to_raise("bad argument #1 to 'write' %(string expected, got table%)")
  expect(io.stdout:write("")).to_be(io.stdout)
end)
