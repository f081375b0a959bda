-- With --allow-os the system is reachable.
scenario("runs a command", function()
  expect(os.execute("true")).to_be_true()
  local pipe = io.popen("echo from-a-pipe")
  expect(pipe:read("l")).to_equal("from-a-pipe")
  pipe:close()
end)
