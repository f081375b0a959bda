-- Found in review: ways out of the sandbox and ways to hang or fool the run.
-- Each must be refused with a clear error, or bounded.
scenario("files are read-only, and /proc, /dev, /sys are out of reach", function()
  expect(function() return io.open("/proc/self/mem", "r+b") end).to_raise("/proc/self/mem is not a regular file")
  expect(function() return io.open("/proc/self/maps") end).to_raise("/proc/self/maps is not a regular file")
  expect(function() return io.open("/dev/null") end).to_raise("is not a regular file")
  expect(function() return io.lines("/proc/self/environ") end).to_raise("is not a regular file")
  expect(function() return io.input("/sys/kernel/notes") end).to_raise("is not a regular file")
  expect(function() return io.open(arg[0], "w") end).to_raise("files are read%-only")
  expect(function() return io.output("x") end).to_raise("io.output is not available")
  expect(function() return os.remove(arg[0]) end).to_raise("os.remove is not available")
  expect(function() return os.rename(arg[0], arg[0]) end).to_raise("os.rename is not available")
  local f = assert(io.open(arg[0]))  -- reading a fixture still works
  expect(f:read("l")).to_match("^%-%- Found in review")
  f:close()
end)

scenario("C loops that no hook can stop are bounded", function()
  expect(function() return string.rep("", math.maxinteger) end).to_raise("string.rep of .* is over the scenario limit")
  expect(function() return ("x"):rep(1 << 40) end).to_raise("over the scenario limit")
  expect(function() return table.move({}, 1, 1 << 53, 1, {}) end).to_raise("table.move of more than")
  expect(#string.rep("ab", 3, ",")).to_equal(8)
  expect(table.move({ 1, 2, 3 }, 1, 3, 2, {})).to_equal({ [2] = 1, [3] = 2, [4] = 3 })
end)

scenario("a script cannot break the report by replacing globals", function()
  next, ipairs, pairs, tostring, error, pcall, xpcall = nil, nil, nil, nil, nil, nil, nil
  string.gsub, string.format, string.find = nil, nil, nil
  expect({ a = 1 }).to_equal({ a = 2 })
end)

scenario("no finalizers: hooks do not run in them, so nothing could stop one", function()
  expect(function() setmetatable({}, { __gc = function() while true do end end }) end)
    .to_raise("__gc metamethods are not available in scenarios")
  local mt = {}
  local t = setmetatable({}, mt)
  mt.__gc = function() while true do end end -- too late: Lua only marks at setmetatable
  expect(getmetatable(t)).to_be(mt)
end)

scenario("load with an explicit nil environment has no globals", function()
  x_global = 1
  expect(function() return load("return x_global", "=c", "t", nil)() end).to_raise("_ENV")
  expect(load("return x_global")()).to_equal(1)
end)

scenario("to_be_close_to refuses NaN and wrapped integers", function()
  expect(function() expect(0 / 0).to_be_close_to(1) end).to_raise("within")
  expect(function() expect(5).to_be_close_to(0 / 0) end).to_raise("within")
  expect(function() expect(math.mininteger).to_be_close_to(0) end).to_raise("within")
  expect(function() expect(math.maxinteger).to_be_close_to(-1) end).to_raise("within")
end)

scenario("a caught error in a step does not blame the steps after it", function()
  expect(function() step("inner", function() error("boom") end) end).to_raise("boom")
  step("later", function() expect(1).to_equal(2) end)
end)

scenario("C1 controls in messages and NUL in output", function()
  io.write("before\0after")
  expect("a\u{85}b\u{90}c").to_equal("x")
end)

scenario("NUL in an error message: escaped, not the end of it", function()
  error("left\0right")
end)

scenario("runs last", function() end)
