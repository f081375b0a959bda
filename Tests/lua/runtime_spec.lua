-- One Switchboard runtime per process: the Lua module, C plugins and the
-- library share one copy, hence one shared mediator.
local sb = require "switchboard"
local helper = require "helper"

local function mapped(pattern)
  local files = {}
  for line in io.lines("/proc/self/maps") do
    local path = line:match("%s(/%S+)$")
    if path and path:match(pattern) then files[path] = true end
  end
  local list = {}
  for path in pairs(files) do list[#list + 1] = path end
  return list
end

describe("one runtime per process", function()
  it("maps exactly one libswitchboard and no Swift runtime library", function()
    sb.load_plugin(helper.plugin)
    assert.are.equal(1, #mapped("libswitchboard%.so"))
    assert.are.same({}, mapped("libswift"))
  end)

  it("a target a plugin provides is visible to Lua, and a Lua target to the plugin", function()
    sb.load_plugin(helper.plugin)
    assert.are.equal("x", sb.perform("Echo", "value", { value = "x" }))
    local name = helper.name("SeenFromC")
    sb.target(name, { ping = function() return "pong" end })
    assert.are.equal("pong", sb.perform("Bridge", "perform", { target = name, action = "ping" }))
  end)
end)
