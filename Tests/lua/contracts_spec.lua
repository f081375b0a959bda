-- Actions with contracts from Lua: sb.target(name, { act = { params = ...,
-- result = ..., exposure = ..., fn = function(p) end } }).
local sb = require "switchboard"

local function echo(p) return p end

describe("contracts", function()
  after_each(function()
    for _, name in ipairs { "LC", "LJ", "LBad", "LR", "NoTargetAction" } do sb.unregister(name) end
  end)

  it("checks params before the Lua function runs: EPARAMS names the key", function()
    local ran = 0
    assert.is_true(sb.target("LC", {
      show = { params = "message: string -- what to say\ncount: int = 3", result = "dict",
               fn = function(p) ran = ran + 1; return p end },
      free = echo,
    }))
    local v, msg, code = sb.perform("LC", "show", { count = 1 })
    assert.is_nil(v)
    assert.equal("EPARAMS", code)
    assert.equal('LC.show: missing required param "message" (string)', msg)
    v, msg, code = sb.perform("LC", "show", { message = 7 })
    assert.equal("EPARAMS", code)
    assert.truthy(msg:find("expected string, got int", 1, true))
    assert.equal(0, ran)
    local got = assert(sb.perform("LC", "show", { message = "hi" }))
    assert.equal(3, got.count)
    assert.equal(1, ran)
    -- An action without a contract takes anything.
    assert.equal("x", assert(sb.perform("LC", "free", { count = "x" })).count)
  end)

  it("checks the declared result where the call lands: ETYPE names the action and both types", function()
    local ran = 0
    assert.is_true(sb.target("LR", {
      bad = { result = "dict", fn = function() ran = ran + 1; return 1 end },
      none = { result = "dict", fn = function() ran = ran + 1 end },
      widened = { result = "double", fn = function() return 3 end },
      good = { result = "dict", fn = function() return { ok = true } end },
      notFound = { result = "string", fn = function() return 2 end },
    }))
    for _ = 1, 2 do
      local v, msg, code = sb.perform("LR", "bad")
      assert.is_nil(v)
      assert.equal("ETYPE", code)
      assert.equal("LR.bad: expected a dict result, got int", msg)
    end
    local v, msg, code = sb.perform("LR", "none", nil, { cache = true })
    assert.is_nil(v)
    assert.equal("LR.none: expected a dict result, got null", msg)
    v, msg, code = sb.open("app://LR/bad")
    assert.is_nil(v)
    assert.equal("ETYPE", code)
    v, msg, code = sb.perform("LR", "missing")
    assert.equal("ETYPE", code)
    assert.equal("LR.notFound (for LR.missing): expected a string result, got int", msg)
    assert.equal(4, ran)
    assert.equal(3.0, sb.perform("LR", "widened"))
    assert.equal("float", math.type(sb.perform("LR", "widened")))
    assert.same({ ok = true }, sb.perform("LR", "good"))
    assert.is_true(sb.target("NoTargetAction", { response = { result = "dict", fn = function() return "sorry" end } }))
    v, msg, code = sb.perform("Nowhere", "x")
    assert.is_nil(v)
    assert.equal("ETYPE", code)
    assert.equal("NoTargetAction.response: expected a dict result, got string", msg)
  end)

  it("takes params as a list of tables, converts URL strings and keeps local actions from URLs", function()
    assert.is_true(sb.target("LJ", {
      add = { params = { { name = "a", type = "int" }, { name = "b", type = "int", default = 10, doc = "b" } },
              fn = function(p) return p.a + p.b end },
      hidden = { exposure = "local", fn = function() return "hidden" end },
    }))
    assert.equal(15, sb.perform("LJ", "add", { a = 5 }))
    assert.equal(42, sb.open("app://LJ/add?a=40&b=2"))
    local v, _, code = sb.open("app://LJ/add?a=forty")
    assert.is_nil(v)
    assert.equal("EPARAMS", code)
    assert.equal("hidden", sb.perform("LJ", "hidden"))
    v, _, code = sb.open("app://LJ/hidden")
    assert.is_nil(v)
    assert.equal("EREJECTED", code)
  end)

  it("refuses a bad contract and registers none of the table", function()
    local bad = {
      { params = "n: integer", fn = echo },
      { params = "n: int, n: int", fn = echo },
      { params = "n: int = \"s\"", fn = echo },
      { params = 3, fn = echo },
      { params = "n: int" },
      { params = "n: int", fn = echo, extra = true },
      { result = 1, fn = echo },
      { params = { { name = "n" } }, fn = echo },
      -- A default is data: not code, nor a table holding code (even in a cycle).
      { params = { { name = "f", type = "any", default = print } }, fn = echo },
      { params = { { name = "f", type = "any", default = { deep = { print } } } }, fn = echo },
      { params = { { name = "f", type = "dict", default = (function()
        local t = {}
        t.self, t.other, t.code = t, t, coroutine.create(print)
        return t
      end)() } }, fn = echo },
    }
    for i, spec in ipairs(bad) do
      local ok, err = pcall(sb.target, "LBad", { good = echo, act = spec })
      assert.is_false(ok, "case " .. i)
      assert.truthy(tostring(err):find("act", 1, true), "case " .. i .. ": " .. tostring(err))
      local v, _, code = sb.perform("LBad", "good")
      assert.is_nil(v)
      assert.equal("ENOTARGET", code)
    end
  end)

  it("takes sb.null as a default, alone or inside a table", function()
    sb.target("LNull", { act = { params = { { name = "a", type = "any", default = sb.null },
                                            { name = "d", type = "dict", default = { x = sb.null } },
                                            { name = "l", type = "array", default = { 1, sb.null } } },
                                 fn = function(p) return p end } })
    local got = assert(sb.perform("LNull", "act"))
    assert.equal(sb.null, got.a)
    assert.is_table(got.d)
    assert.equal(1, got.l[1])
    assert.is_true(sb.unregister("LNull"))
  end)

  it("keeps a cyclic table default from looping: conversion refuses it", function()
    local t = {}
    t.a, t.b = t, t
    local ok, err = pcall(sb.target, "LCycle", { act = { params = { { name = "d", type = "dict", default = t } }, fn = echo } })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("act", 1, true), tostring(err))
  end)

  it("lists contracts in sb.routes()", function()
    sb.target("LC", { show = { params = "message: string -- what to say", fn = echo } })
    local routes = sb.routes()
    local found
    for _, t in ipairs(routes.targets) do
      if t.name == "LC" then found = t end
    end
    assert.is_table(found)
    local show = found.contracts.show
    assert.equal("remote", show.exposure)
    assert.equal("message", show.params[1].name)
    assert.equal("what to say", show.params[1].doc)
    assert.is_nil(show.async)
    assert.same({}, found.async)
  end)

  it("lists the actions whose contract says async under the target's async", function()
    sb.target("LC", { fetch = { params = "async, id: int", fn = echo }, show = echo,
                      peek = { params = "id: int?", result = "dict", fn = echo } })
    local found
    for _, t in ipairs(sb.routes().targets) do
      if t.name == "LC" then found = t end
    end
    assert.same({ "fetch" }, found.async)
    assert.is_true(found.contracts.fetch.async)
    assert.is_nil(found.contracts.peek.async)
  end)
end)
