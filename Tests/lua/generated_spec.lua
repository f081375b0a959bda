-- The module `switchboard gen --lang lua` writes (Tests/generated/lua/sb_typed.lua)
-- over Target_Typed (Tests/c/plugins/typed_plugin.c), whose actions answer
-- with the params they got: the wrappers check params at the call, then
-- perform.
local sb = require "switchboard"
local helper = require "helper"

describe("generated Lua wrappers", function()
  local Typed

  setup(function()
    assert(sb.load_plugin(helper.typed_plugin))
    Typed = require "sb_typed"
  end)

  -- The error a wrapper raises, with the caller's position.
  local function raised(f)
    local ok, err = pcall(f)
    assert.is_false(ok)
    return err
  end

  it("passes every type through, under its contract name", function()
    local got = assert(Typed.everything{
      flag = true, count = 42, ratio = 2.5, name = "text", data = "\0\1", list = sb.array{}, map = { k = 1 },
      done = function() return "called" end, anything = "x",
    })
    assert.equal(42, got.count)
    assert.equal(2.5, got.ratio)
    assert.equal("called", got.done())
    assert.same({ k = 1 }, got.map)
  end)

  it("leaves out what is not given, and the mediator fills in the default", function()
    assert.same({ count = 7 }, assert(Typed.optional()))
    assert.same({ count = 7 }, assert(Typed.optional{}))
    local got = assert(Typed.oddNames{ default = 1, ["answer-id"] = "id", ["end"] = false, params = "p", out = 2 })
    assert.same({ default = 1, ["answer-id"] = "id", ["end"] = false, params = "p", out = 2 }, got)
  end)

  it("raises at the caller's line for a missing, mistyped or unknown param", function()
    local err = raised(function() Typed.everything{ flag = true } end)
    assert.truthy(err:find("generated_spec.lua:%d+: Typed.everything: param \"count\" %(int%) is required"), err)
    err = raised(function() Typed.optional{ count = 1.5 } end)
    assert.truthy(err:find('Typed.optional: param "count": expected int, got float', 1, true), err)
    err = raised(function() Typed.optional{ flag = "yes" } end)
    assert.truthy(err:find('param "flag": expected bool, got string', 1, true), err)
    err = raised(function() Typed.optional{ done = 3 } end)
    assert.truthy(err:find('param "done": expected callback, got integer', 1, true), err)
    err = raised(function() Typed.optional{ conut = 1 } end)
    assert.truthy(err:find("Typed.optional: unknown param conut", 1, true), err)
    err = raised(function() Typed.optional("count") end)
    assert.truthy(err:find("Typed.optional: params must be a table, got string", 1, true), err)
  end)

  it("passes the mediator's own keys, switchboard.module and CTMediator's alias, on to it", function()
    -- No Swift module called Nowhere: the mediator, not the wrapper, answers.
    local result, message, code = Typed.optional{ ["switchboard.module"] = "Nowhere" }
    assert.is_nil(result)
    assert.equal("ENOTARGET", code, message)
    result, message, code = Typed.optional{ kCTMediatorParamsKeySwiftTargetModuleName = "Nowhere" }
    assert.is_nil(result)
    assert.equal("ENOTARGET", code, message)
  end)

  it("returns what sb.perform returns, and passes the options on", function()
    assert.equal(2, Typed.countKeys{ a = 1, b = 2 })
    assert.same({}, assert(Typed.secret()))
    -- The mediator's own check still answers what a Lua type cannot tell: a
    -- string that is not UTF-8 is bytes, not a string.
    local v, msg, code = Typed.optional{ name = "\xff" }
    assert.is_nil(v)
    assert.equal("EPARAMS", code)
    assert.truthy(msg:find('"name"', 1, true))
    assert.same({ count = 7 }, assert(Typed.optional({}, { cache = true })))
    sb.release("Typed")
  end)

  it("reports a result the contract does not declare: ETYPE from the mediator", function()
    local v, msg, code = Typed.wrongResult()
    assert.is_nil(v)
    assert.equal("ETYPE", code)
    assert.equal("Typed.wrongResult: expected a string result, got dict", msg)
  end)

  it("lets no fallback answer a typed call, as in Swift and C; sb.perform still falls back", function()
    assert.is_true(sb.target("NoTargetAction", { response = function() return {} end }))
    assert.equal(0, Typed.countKeys({}, { cache = true }))
    -- A module that has no Typed: nothing answers but the fallback.
    local v, msg, code = Typed.optional{ ["switchboard.module"] = "Nowhere" }
    assert.is_nil(v)
    assert.equal("ENOTARGET", code, msg)
    assert.same({}, sb.perform("Nowhere", "x"))
    v, msg, code = sb.perform("Nowhere", "x", nil, { fallback = false })
    assert.is_nil(v)
    assert.equal("ENOTARGET", code, msg)
    sb.release("Typed")
    sb.unregister("NoTargetAction")
  end)

  it("has no wrapper for an action without a contract", function()
    assert.is_nil(Typed.untyped)
    assert.is_function(Typed.wrongResult)
  end)
end)
