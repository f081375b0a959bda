-- Special files on every path a scenario can make the runner read (issue 19,
-- items 6 and 11). cli-tests.sh makes the files in a temporary directory
-- and names it in SB_SPECIAL_DIR: fifo.lua and Target_Fifo.lua are FIFOs
-- with no writer (opening one to read blocks until a writer comes),
-- Target_Maps.lua is a symbolic link to /proc/self/maps, Target_Binary.lua
-- and binary.lua are regular files that are not text (NUL bytes and a token
-- that looks like an address), plain.txt is a regular text file.
local dir = assert(os.getenv("SB_SPECIAL_DIR"), "run by scripts/cli-tests.sh")

scenario("require refuses a FIFO on package.path at once", function()
  package.path = dir .. "/?.lua"
  expect(function() return require("fifo") end).to_raise("not a regular file")
end)

scenario("loadfile, dofile and io.open refuse a FIFO at once", function()
  expect(function() return loadfile(dir .. "/fifo.lua") end).to_raise("not a regular file")
  expect(function() return dofile(dir .. "/fifo.lua") end).to_raise("not a regular file")
  expect(function() return io.open(dir .. "/fifo.lua") end).to_raise("not a regular file")
  expect(function() return io.lines(dir .. "/fifo.lua") end).to_raise("not a regular file")
  -- A regular file still reads, through the handle io.open makes.
  local f = assert(io.open(dir .. "/plain.txt"))
  expect(f:read("l")).to_be("plain text")
  expect(io.type(f)).to_be("file")
  f:close()
  expect(io.type(f)).to_be("closed file")
  local missing, message = io.open(dir .. "/missing.txt")
  expect(missing).to_be_nil()
  expect(message).to_match("No such file")
end)

scenario("sb.path discovery refuses a FIFO at once", function()
  sb.path = dir .. "/?.lua"
  local ok, message, code = sb.perform("Fifo", "anything")
  expect(ok).to_be_nil()
  expect(message).to_match("Target_Fifo.lua: not a regular file")
  expect(code).to_be("EACTION")
end)

scenario("sb.path discovery refuses /proc/self/maps and quotes nothing of it", function()
  sb.path = dir .. "/?.lua"
  local ok, message = sb.perform("Maps", "anything")
  expect(ok).to_be_nil()
  expect(message).to_match("procfs")
  expect(message:find("%x%x%x%x%x%x%x%x%-")).to_be_nil() -- no mapped address range
end)

scenario("a file that is not text is not Lua source; its bytes are not quoted", function()
  sb.path = dir .. "/?.lua"
  local ok, message = sb.perform("Binary", "anything")
  expect(ok).to_be_nil()
  expect(message).to_match("not Lua source")
  expect(message:find("deadbeef", 1, true)).to_be_nil()
  local chunk, why = loadfile(dir .. "/binary.lua")
  expect(chunk).to_be_nil()
  expect(why).to_match("not Lua source")
  expect(why:find("deadbeef", 1, true)).to_be_nil()
  package.path = dir .. "/?.lua"
  expect(function() return require("binary") end).to_raise("not Lua source")
end)

scenario("package.searchpath refuses a FIFO at once and finds regular files", function()
  expect(function() return package.searchpath("fifo", dir .. "/?.lua") end).to_raise("not a regular file")
  expect(package.searchpath("plain", dir .. "/?.lua;" .. dir .. "/?.txt")).to_be(dir .. "/plain.txt")
  local none, message = package.searchpath("missing", dir .. "/?.lua")
  expect(none).to_be_nil()
  expect(message).to_be("no file '" .. dir .. "/missing.lua'")
end)

scenario("later scenarios still run", function()
  expect(1 + 1).to_be(2)
end)
