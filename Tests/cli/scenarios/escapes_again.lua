-- Found in a second review: originals reached through the stack, C objects'
-- metatables, files that are not regular, the process locale, stdin.
scenario("a reader function cannot reach an original load", function()
  local found
  load(function() found = found or debug.getinfo(2, "f").func end)
  local chunk, message = found(string.dump(function() return 1 end), "x", "b")
  expect(chunk).to_be_nil()
  expect(message).to_match("binary")
  local parts, i = { "return ", "1 + 1" }, 0
  expect(load(function() i = i + 1; return parts[i] end)()).to_equal(2)
end)

scenario("a metamethod cannot reach an original table.move", function()
  local found
  local source = setmetatable({}, { __index = function() found = found or debug.getinfo(2, "f").func; return 1 end })
  expect(table.move(source, 1, 2, 1, {})).to_equal({ 1, 1 })
  expect(function() found({}, 1, 1 << 40, 1, {}) end).to_raise("over the scenario limit")
  expect(table.move({ 1, 2, 3, 4 }, 1, 3, 2)).to_equal({ 1, 1, 2, 3 })
  expect(table.move({ 1, 2, 3, 4 }, 2, 4, 1)).to_equal({ 2, 3, 4, 4 })
end)

scenario("the metatables of C objects are locked", function()
  expect(getmetatable(io.stdout)).to_be_a("string")
  expect(function() return debug.getmetatable(io.stdout) end).to_raise("debug.getmetatable is not available")
  expect(function() return debug.getlocal(1, 1) end).to_raise("debug.getlocal is not available")
end)

scenario("only regular files on ordinary file systems are read", function()
  expect(function() return io.open("/dev/fd/0") end).to_raise("not a regular file")
  expect(function() return loadfile("/proc/self/maps") end).to_raise("not a regular file")
  expect(function() return dofile("/proc/self/status") end).to_raise("not a regular file")
  expect(function() return loadfile() end).to_raise("needs a file name")
  package.path = "/proc/self/?"
  expect(function() return require("maps") end).to_raise("not a regular file")
end)

scenario("the locale can be read, not changed; stdin is empty", function()
  expect(os.setlocale()).to_equal("C")
  expect(function() return os.setlocale("de_DE.UTF-8") end).to_raise("can only query")
  expect(io.read()).to_be_nil()
end)

-- Found in a third review (issue 19): sb.array replaced a locked metatable,
-- and a failure's metatable answered the runner's own marker table.
scenario("sb.array refuses a table with a metatable of its own", function()
  local e = expect(1)
  expect(function() sb.array(e) end).to_raise("metatable of its own")
  expect(getmetatable(e)).to_be("expectation")
  local ok, failure = pcall(function() expect(1).to_equal(2) end)
  expect(ok).to_be(false)
  expect(getmetatable(failure)).to_be_a("string") -- not the marker the runner knows failures by
  expect(function() sb.array(failure) end).to_raise("metatable of its own")
  local marked = sb.array({})
  expect(sb.array(marked)).to_be(marked) -- the marker itself may be given again
end)
