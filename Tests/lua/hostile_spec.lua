-- Hostile inputs to the module itself, outside any sandbox (issue 19):
-- special files on sb.path, metatables a script could reach, conversions
-- that expand; registration at scale (issue 39).
local sb = require "switchboard"
local helper = require "helper"

sb.load_plugin(helper.plugin)

describe("files on sb.path", function()
  local saved, dir
  before_each(function()
    saved = sb.path
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir " .. dir .. " && mkfifo " .. dir .. "/Target_Fifo.lua"))
    assert(os.execute("ln -s /proc/self/maps " .. dir .. "/Target_Maps.lua"))
    local f = assert(io.open(dir .. "/Target_Binary.lua", "wb"))
    f:write("return {\0 0xdeadbeef1234 }\n")
    f:close()
    sb.path = dir .. "/?.lua"
  end)
  after_each(function()
    sb.path = saved
    os.execute("rm -rf " .. dir)
  end)

  it("a FIFO is refused at once (it was opened blocking: no writer, no end)", function()
    local result, message, code = sb.perform("Fifo", "x")
    assert.is_nil(result)
    assert.matches("Target_Fifo.lua: not a regular file", message, 1, true)
    assert.are.equal("EACTION", code)
  end)

  it("/proc/self/maps is refused, and no address of it is quoted", function()
    local result, message = sb.perform("Maps", "x")
    assert.is_nil(result)
    assert.matches("procfs", message, 1, true)
    assert.is_nil(message:find("%x%x%x%x%x%x%x%x%-"))
  end)

  it("a file that is not text is not Lua source; none of its bytes are quoted", function()
    local result, message = sb.perform("Binary", "x")
    assert.is_nil(result)
    assert.matches("Target_Binary.lua: not Lua source (the file is not text)", message, 1, true)
    assert.is_nil(message:find("deadbeef", 1, true))
  end)
end)

describe("metatables the module makes", function()
  it("are locked when they are made, the lazily made ones included", function()
    assert.are.equal("switchboard.array", getmetatable(sb.array {}))
    assert.are.equal("switchboard.array", getmetatable(sb.perform("Echo", "value", { value = sb.array { 1 } })))
    assert.are.equal("switchboard.cancellation", getmetatable(sb.cancellation()))
  end)

  it("a C value's shows its public part only: callable, and no __gc to call", function()
    local add5 = sb.perform("Echo", "adder", { n = 5 })
    local mt = getmetatable(add5)
    assert.are.equal("table", type(mt))
    assert.is_not_nil(mt.__call)
    assert.is_nil(mt.__gc)
    mt.__call = nil -- a copy: the value is still callable
    assert.are.equal(15, add5(10))
  end)
end)

describe("conversion by size", function()
  it("a table that shares a subtable at every level is refused past 256 MiB once expanded", function()
    local t = { string.rep("x", 1 << 20) }
    for _ = 1, 9 do t = { t, t } end -- 512 MiB of strings as a tree, 1 MiB as a DAG
    local ok, err = pcall(sb.perform, "Echo", "value", { value = t })
    assert.is_false(ok)
    assert.matches("too large to cross to C: more than 256 MiB once expanded", err, 1, true)
    -- Below the bound, the same shape converts.
    t = { 1 }
    for _ = 1, 8 do t = { t, t } end
    assert.are.equal(2, #sb.perform("Echo", "value", { value = t }))
  end)
end)

describe("registration at scale", function()
  it("sb.target with 20,000 actions: each answers, the catalogue lists them, replacing and removing one keeps the rest", function()
    local name, actions = helper.name("Big"), {}
    for i = 1, 20000 do
      local n = i
      actions["a" .. i] = function() return n end
    end
    assert.is_true(sb.target(name, actions))
    for i = 1, 20000, 7 do assert.are.equal(i, sb.perform(name, "a" .. i)) end
    local listed
    for _, t in ipairs(sb.routes().targets) do
      if t.name == name then listed = t.actions end
    end
    assert.are.equal(20000, #listed)
    -- One more registration on the big target replaces one action only.
    assert.is_true(sb.target(name, { a5 = function() return "five" end }))
    assert.are.equal("five", sb.perform(name, "a5"))
    assert.are.equal(6, sb.perform(name, "a6"))
    assert.is_true(sb.unregister(name))
    assert.are_not.equal(6, (sb.perform(name, "a6")))
    helper.row("sb.target with 20,000 actions in one table, then one replaced", 20000,
      "each answers; one registration copies one path of the action map, not the map")
  end)
end)
