local sb = require "switchboard"
local helper = require "helper"

describe("Target_<Name>.lua on sb.path", function()
  local saved
  before_each(function()
    saved = sb.path
    sb.path = helper.targets .. "/?.lua"
  end)
  after_each(function() sb.path = saved end)

  it("is found on the first perform, with no registration", function()
    assert.are.equal("hello from a file!", sb.perform("Files", "hello", { suffix = "!" }))
    assert.are.equal("Files has no such action", sb.perform("Files", "other"))
  end)

  it("is listed in sb.routes() with the file it came from", function()
    sb.unregister("Files")
    assert.are.equal("hello from a file!", sb.perform("Files", "hello", { suffix = "!" }))
    local origin
    for _, t in ipairs(sb.routes().targets) do
      if t.name == "Files" then origin = t.origin end
    end
    assert.are.equal("Lua file " .. helper.targets .. "/Target_Files.lua", origin)
  end)

  it("is loaded once, and again after sb.unregister", function()
    local first = sb.perform("Files", "loads")
    assert.are.equal(first, sb.perform("Files", "loads"))
    sb.unregister("Files")
    assert.are.equal(first + 1, sb.perform("Files", "loads"))
  end)

  it("is reachable from C too: a plugin performs it", function()
    sb.load_plugin(helper.plugin)
    sb.unregister("Files")
    local got = sb.perform("Bridge", "perform", { target = "Files", action = "hello", params = { suffix = "?" } })
    assert.are.equal("hello from a file?", got)
  end)

  it("reports a file that does not load as an error, not as a missing target", function()
    local result, message, code = sb.perform("Broken", "hello")
    assert.is_nil(result)
    assert.are.equal("EACTION", code)
    assert.matches("Target_Broken.lua", message)
    _, message, code = sb.perform("NotATable", "x")
    assert.are.equal("EACTION", code)
    assert.matches("not a table", message)
    _, message, code = sb.perform("Raises", "x")
    assert.are.equal("EACTION", code)
    assert.matches("refuses to load", message)
  end)

  it("is not looked for again while it loads: a file that performs its own target", function()
    _G.SELF_LOADS, _G.SELF_NESTED = 0, nil -- the file's globals
    assert.are.equal("loaded", sb.perform("SelfPerforming", "x"))
    assert.are.equal(1, _G.SELF_LOADS)
    assert.are.equal("EREJECTED", _G.SELF_NESTED.code)
    assert.matches("discovery loop", _G.SELF_NESTED.message)
    sb.unregister("SelfPerforming")
  end)

  it("finds nothing for a missing file, or for a name that is not a plain name", function()
    local _, _, code = sb.perform("NoSuchFile", "x")
    assert.are.equal("ENOTARGET", code)
    _, _, code = sb.perform("../targets/Target_Files", "x")
    assert.are.equal("ENOTARGET", code)
  end)

  it("reports an sb.path that is not a string", function()
    sb.path = 42
    local _, message, code = sb.perform(helper.name("Anything"), "x")
    assert.are.equal("ETYPE", code)
    assert.matches("sb.path", message)
  end)
end)
