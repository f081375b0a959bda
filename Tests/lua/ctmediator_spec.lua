-- CTMediator's semantics as a ported caller relies on them (issue 20, items
-- 1-5): the fallbacks' params, a missing action dropping the cached target,
-- CTMediator's module key, what sb.release says, a trailing slash in URLs.
local sb = require "switchboard"
local helper = require "helper"

describe("CTMediator's semantics", function()
  after_each(function()
    sb.unregister("NoTargetAction")
    sb.degrade(nil)
    sb.rules({})
  end)

  it("tells NoTargetAction targetString Target_X, selectorString Action_x:, target, action, and url for a URL", function()
    sb.target("NoTargetAction", { response = function(p) return p end })
    local ghost = helper.name("Ghost")
    local got = assert(sb.perform(ghost, "boo", { k = "v" }))
    assert.are.same({ originParams = { k = "v" }, targetString = "Target_" .. ghost, selectorString = "Action_boo:",
                      target = ghost, action = "boo" }, got)
    got = assert(sb.perform(ghost, "boo", { ["switchboard.module"] = "Mod" }))
    assert.are.equal("Mod.Target_" .. ghost, got.targetString)
    assert.are.equal(ghost, got.target)
    got = assert(sb.perform(ghost, "boo", { kCTMediatorParamsKeySwiftTargetModuleName = "Mod" }))
    assert.are.equal("Mod.Target_" .. ghost, got.targetString)
    got = assert(sb.perform("Mod." .. ghost, "boo"))
    assert.are.equal("Mod.Target_" .. ghost, got.targetString)
    got = assert(sb.open("app://" .. ghost .. "/boo?k=v"))
    assert.are.same({ originParams = { k = "v" }, targetString = "Target_" .. ghost, selectorString = "Action_boo:",
                      target = ghost, action = "boo", url = "app://" .. ghost .. "/boo?k=v" }, got)
  end)

  it("drops a cached target when the action is missing and there is no notFound", function()
    sb.load_plugin(helper.counter_plugin)
    sb.release("Tally")
    assert.are.equal(1, sb.perform("Tally", "next", nil, { cache = true }))
    assert.are.equal(2, sb.perform("Tally", "next", nil, { cache = true }))
    local result, _, code = sb.perform("Tally", "absent", nil, { cache = true })
    assert.is_nil(result)
    assert.are.equal("ENOACTION", code)
    -- a fresh instance: the cached one was released
    assert.are.equal(1, sb.perform("Tally", "next", nil, { cache = true }))
    assert.are.equal(2, sb.perform("Tally", "next"))
    _, _, code = sb.open("app://Tally/absent")
    assert.are.equal("ENOACTION", code)
    assert.are.equal(1, sb.perform("Tally", "next", nil, { cache = true }))
    -- a notFound that answers keeps the cached instance
    sb.release("Counter")
    assert.are.equal(1, sb.perform("Counter", "next", nil, { cache = true }))
    assert(sb.perform("Counter", "absent"))
    assert.are.equal(2, sb.perform("Counter", "next", nil, { cache = true }))
    sb.release("Counter")
    sb.release("Tally")
  end)

  it("reads CTMediator's module key as switchboard.module, and an empty module as none", function()
    local name = helper.name("Mod")
    sb.target("M." .. name, { who = function() return "M" end })
    sb.target(name, { who = function() return "plain" end })
    assert.are.equal("M", sb.perform(name, "who", { kCTMediatorParamsKeySwiftTargetModuleName = "M" }))
    assert.are.equal("M", sb.perform(name, "who", { ["switchboard.module"] = "M" }))
    assert.are.equal("plain", sb.perform(name, "who", { kCTMediatorParamsKeySwiftTargetModuleName = "" }))
    assert.are.equal("plain", sb.perform(name, "who", { ["switchboard.module"] = "" }))
    assert.are.equal("M", sb.perform(name, "who",
      { ["switchboard.module"] = "", kCTMediatorParamsKeySwiftTargetModuleName = "M" }))
    -- never from a URL
    local result, message, code = sb.open("app://" .. name .. "/who?kCTMediatorParamsKeySwiftTargetModuleName=M")
    assert.is_nil(result)
    assert.are.equal("EREJECTED", code)
    assert.matches("cannot come from a URL", message, 1, true)
    sb.unregister("M." .. name)
    sb.unregister(name)
  end)

  -- Found in a hostile review (issue 20): "\0scheme:" .. a .. "." .. b is
  -- the internal name of the handler of scheme a.b; a module key spelled it.
  it("refuses a module with a NUL byte: no module key spells a URL handler's name", function()
    local scheme = helper.name("my"):lower() .. ".app"
    local calls = 0
    assert.is_true(sb.scheme(scheme, function() calls = calls + 1 return "handler" end))
    local module = "\0scheme:" .. scheme:sub(1, #scheme - 4)
    for _, key in ipairs({ "switchboard.module", "kCTMediatorParamsKeySwiftTargetModuleName" }) do
      local result, message, code = sb.perform("app", "open", { [key] = module })
      assert.is_nil(result)
      assert.are.equal("EINVAL", code)
      assert.matches("module name contains a NUL byte", message, 1, true)
    end
    assert.are.equal(0, calls)
    assert.are.equal("handler", sb.open(scheme .. "://x"))
    assert.are.equal(1, calls)
    sb.scheme(scheme, false)
  end)

  it("sb.release says when nothing was cached: nil, message, ENOTFOUND", function()
    sb.load_plugin(helper.counter_plugin)
    sb.release("Counter")
    local ok, message, code = sb.release("Counter")
    assert.is_nil(ok)
    assert.are.equal("ENOTFOUND", code)
    assert.matches("no cached instance", message, 1, true)
    _, _, code = sb.release(helper.name("Never"))
    assert.are.equal("ENOTFOUND", code)
    _, _, code = sb.release("Target_Counter")
    assert.are.equal("ENOTFOUND", code)
    assert.are.equal(1, sb.perform("Counter", "next", nil, { cache = true }))
    assert.is_true(sb.release("Counter"))
  end)

  it("opens app://T/action/ with one trailing slash; refuses more segments", function()
    local name = helper.name("Slash")
    sb.target(name, { echo = function(p) return p end })
    assert.are.same({ k = "v" }, sb.open("app://" .. name .. "/echo/?k=v"))
    assert.are.same({}, sb.open("app://" .. name .. "/echo/"))
    for _, tail in ipairs { "/echo//", "/echo/more", "/echo/more/" } do
      local result, _, code = sb.open("app://" .. name .. tail)
      assert.is_nil(result)
      assert.are.equal("EBADURL", code)
    end
    local _, _, code = sb.open("other://" .. name .. "/echo/")
    assert.are.equal("ENOTARGET", code)
    sb.unregister(name)
  end)
end)
