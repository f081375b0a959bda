-- Every conversion rule, both ways, through C targets that echo values and
-- report the types they received (Echo, in lua_test_plugin.c).
local sb = require "switchboard"
local helper = require "helper"

sb.load_plugin(helper.plugin)

local function roundtrip(v) return sb.perform("Echo", "value", { value = v }) end
local function c_type(v) return sb.perform("Echo", "types", { value = v }).value end

local function keys_of(t) return sb.perform("Echo", "keys", { value = t }) end
local COMPOSED, DECOMPOSED = "caf\xC3\xA9", "cafe\xCC\x81" -- e-acute, two ways

describe("dict order and key bytes", function()
  it("a plain table converts in the byte order of its keys", function()
    assert.are.same({ "a", "b", "c" }, keys_of { c = 1, a = 2, b = 3 })
    -- Two spellings of e-acute are two keys; "cafe" + U+0301 sorts first.
    assert.are.same({ DECOMPOSED, COMPOSED, "z" }, keys_of { [COMPOSED] = 1, z = 2, [DECOMPOSED] = 3 })
    local many = {}
    for i = 1, 100 do many[string.format("k%03d", 101 - i)] = i end
    local got = keys_of(many)
    assert.are.equal(100, #got)
    for i = 2, #got do assert.is_true(got[i - 1] < got[i]) end
  end)

  it("a table made from a dict keeps its order; keys added in Lua follow, in byte order", function()
    local t = sb.perform("Echo", "ordered")
    assert.are.same({ "zeta", "alpha", "mid", "inner" }, keys_of(t))
    assert.are.same({ "y", "x" }, keys_of(t.inner))
    t.alpha = nil
    t.beta, t.aardvark = 1, 2
    assert.are.same({ "zeta", "mid", "inner", "aardvark", "beta" }, keys_of(t))
    -- Through C and back, and through a Lua target, the order holds.
    local again = sb.perform("Echo", "params", t)
    assert.are.same({ "zeta", "mid", "inner", "aardvark", "beta" }, keys_of(again))
    sb.target("KeepOrder", { back = function(p) return p end })
    assert.are.same({ "zeta", "mid", "inner", "aardvark", "beta" }, keys_of(sb.perform("KeepOrder", "back", again)))
    sb.unregister("KeepOrder")
  end)

  it("survives the debug library replacing the order records in the registry", function()
    local t = sb.perform("Echo", "ordered")
    local registry, slot = debug.getregistry(), nil
    for k, v in pairs(registry) do
      local mt = type(v) == "table" and debug.getmetatable(v) -- locked: getmetatable answers a string
      if mt and mt.__mode == "k" and rawget(v, t) then slot = k end
    end
    assert.is_not_nil(slot)
    local saved = registry[slot]
    registry[slot] = 42
    -- Records made before are lost (byte order), but nothing breaks, and new ones are kept.
    assert.are.same({ "alpha", "inner", "mid", "zeta" }, keys_of(t))
    assert.are.same({ "zeta", "alpha", "mid", "inner" }, keys_of(sb.perform("Echo", "ordered")))
    registry[slot] = saved
  end)

  it("the order record is the module's own: a script cannot see or change it", function()
    local t = sb.perform("Echo", "ordered")
    assert.is_nil(getmetatable(t))
    local n = 0
    for _ in pairs(t) do n = n + 1 end
    assert.are.equal(4, n)
  end)
end)

describe("conversions", function()
  it("keeps integers and floats apart: 3 is not 3.0", function()
    assert.are.equal("int", c_type(3))
    assert.are.equal("double", c_type(3.0))
    assert.are.equal(math.type(3), math.type(roundtrip(3)))
    assert.are.equal("float", math.type(roundtrip(3.0)))
    assert.are.equal(math.maxinteger, roundtrip(math.maxinteger))
    assert.are.equal(math.mininteger, roundtrip(math.mininteger))
  end)

  it("passes NaN and infinities as doubles", function()
    local nan = roundtrip(0 / 0)
    assert.is_true(nan ~= nan)
    assert.are.equal(math.huge, roundtrip(math.huge))
    assert.are.equal(-math.huge, roundtrip(-math.huge))
    assert.are.equal("double", c_type(0 / 0))
  end)

  it("keeps strings byte-exact: valid UTF-8 becomes a string, anything else bytes", function()
    assert.are.equal("string", c_type("héllo"))
    assert.are.equal("bytes", c_type("\255\254"))
    assert.are.equal("string", c_type("a\0b"))
    assert.are.equal("a\0b", roundtrip("a\0b"))
    assert.are.equal("\255\0\254", roundtrip("\255\0\254"))
    assert.are.equal("", roundtrip(""))
  end)

  it("booleans and nil", function()
    assert.are.equal("bool", c_type(true))
    assert.is_true(roundtrip(true))
    assert.is_false(roundtrip(false))
    -- null is the whole result of a call that succeeded: sb.null, never nil
    assert.are.equal(sb.null, roundtrip(nil))
  end)

  it("a sequence becomes an array; other tables dicts with string keys", function()
    assert.are.equal("array", c_type({ 1, 2, 3 }))
    assert.are.equal("dict", c_type({ a = 1 }))
    assert.are.same({ 1, "two", 3.5 }, roundtrip({ 1, "two", 3.5 }))
    assert.are.same({ a = { b = { c = { 1, 2 } } } }, roundtrip({ a = { b = { c = { 1, 2 } } } }))
  end)

  it("maps the empty table to an empty dict, and sb.array({}) to an empty array", function()
    assert.are.equal("dict", c_type({}))
    assert.are.equal("array", c_type(sb.array({})))
    local back = roundtrip(sb.array({}))
    assert.are.same({}, back)
    assert.are.equal("array", c_type(back)) -- arrays come back marked
  end)

  it("carries null as sb.null inside tables and as a call's whole result", function()
    assert.are.same({ 1, sb.null, 3 }, roundtrip({ 1, sb.null, 3 }))
    assert.are.equal("null", c_type(sb.null))
    assert.are.equal(sb.null, roundtrip({ x = sb.null }).x)
    assert.are.equal(sb.null, roundtrip(sb.null))
  end)

  it("refuses other key types with an error naming the key", function()
    local ok, err = pcall(sb.perform, "Echo", "value", { [1] = "a", b = "c" })
    assert.is_false(ok)
    assert.matches("table key 1 %(a number%) is not a string", err)
    ok, err = pcall(sb.perform, "Echo", "value", { value = { [true] = 1 } })
    assert.is_false(ok)
    assert.matches("true %(a boolean%)", err)
    ok, err = pcall(sb.perform, "Echo", "value", { value = { [2.5] = 1 } })
    assert.is_false(ok)
    assert.matches("2.5", err)
    ok, err = pcall(sb.perform, "Echo", "value", { value = { 1, nil, 3 } }) -- a hole
    assert.is_false(ok)
    assert.matches("the array has a hole at index 2 %(a nil%): use sb.null", err)
  end)

  it("blames a sequence with holes on its first hole, not on a key", function()
    local ok, err = pcall(sb.perform, "Echo", "value", { value = { [1] = 1, [2] = 2, [4] = 4, [9] = 9 } })
    assert.is_false(ok)
    assert.matches("hole at index 3", err)
    ok, err = pcall(sb.perform, "Echo", "value", { value = { [2] = "x" } })
    assert.is_false(ok)
    assert.matches("hole at index 1", err)
    -- integer keys mixed with others: the key is named, as before
    ok, err = pcall(sb.perform, "Echo", "value", { value = { [1] = 1, [3] = 3, x = 1 } })
    assert.is_false(ok)
    assert.not_matches("hole", err)
    -- {1, sb.null, 3} is the way to say it
    assert.are.same({ 1, sb.null, 3 }, roundtrip({ 1, sb.null, 3 }))
  end)

  it("refuses a cycle and too deep nesting with an error, never a hang", function()
    local t = {}
    t.me = t
    local ok, err = pcall(sb.perform, "Echo", "value", { value = t })
    assert.is_false(ok)
    assert.matches("cycle", err)
    local deep = {}
    for _ = 1, 500 do deep = { deep } end
    ok, err = pcall(sb.perform, "Echo", "value", { value = deep })
    assert.is_false(ok)
    assert.matches("SB_MAX_DEPTH", err)
    -- a table seen twice without a cycle is fine
    local shared = { 1 }
    assert.are.same({ shared, shared }, roundtrip({ shared, shared }))
  end)

  it("refuses values that cannot cross", function()
    assert.has_error(function() sb.perform("Echo", "value", { value = coroutine.create(function() end) }) end)
    assert.has_error(function() sb.perform("Echo", "value", { value = io.stdout }) end)
  end)

  it("turns results from C into plain Lua values", function()
    local got = sb.perform("Echo", "params", { a = 1, b = { 2, 3 }, c = { d = "e" } })
    assert.are.same({ a = 1, b = { 2, 3 }, c = { d = "e" } }, got)
    assert.are.equal("table", type(got.b))
  end)

  it("carries a C pointer through Lua with its identity", function()
    local p = sb.perform("Echo", "pointer")
    assert.are.equal("userdata", type(p))
    assert.matches("^switchboard.pointer: ", tostring(p))
    assert.are.equal("pointer", c_type(p))
    assert.are.equal(p, roundtrip(p)) -- the same C value comes back
    assert.is_true(sb.perform("Echo", "isPointer", { value = p }))
    assert.has_error(function() p() end) -- a pointer is not callable
  end)
end)

-- A dict's conversion starts from the first key the array check met (it is
-- not asked of lua_next twice): every shape of table nesting must still
-- convert whole, and a failure deep inside must leave the caller's stack as
-- it was.
describe("tables whose first key is a string", function()
  it("convert whole at every depth: dicts in arrays in dicts, one key or many", function()
    local value = {
      one = { only = 1 },
      list = { { a = 1 }, { b = { c = { d = "deep" } } }, 3 },
      mixed = { z = 1, y = { 1, 2 }, x = { w = sb.null } },
    }
    assert.are.same(value, roundtrip(value))
    assert.are.same({ "list", "mixed", "one" }, keys_of(value))
    assert.are.same({ "x", "y", "z" }, keys_of(value.mixed))
  end)

  it("name a bad key met after a string key, and a bad value inside", function()
    local ok, err = pcall(sb.perform, "Echo", "value", { value = { a = 1, [true] = 2 } })
    assert.is_false(ok)
    assert.matches("true %(a boolean%) is not a string", err)
    ok, err = pcall(sb.perform, "Echo", "value", { value = { a = { b = { c = io.stdout } } } })
    assert.is_false(ok)
    assert.matches("userdata cannot cross to C", err)
    ok, err = pcall(sb.perform, "Echo", "value", { value = { { a = { coroutine.create(print) } } } })
    assert.is_false(ok)
    assert.matches("thread cannot cross to C", err)
  end)

  it("leave the stack balanced when a conversion fails deep inside", function()
    -- An interceptor's decision converts its params and goes on after a
    -- failure: a stack left unbalanced would break what it reads next.
    sb.target("Twice", { run = function(p) return p.n * 2 end })
    for depth = 1, 4 do
      local bad = { x = io.stdout }
      for _ = 1, depth do bad = { k = bad, j = { 1, { m = 2 } } } end
      local id = sb.intercept(1, function(call)
        if call.target == "Twice" then return "redirect", "Twice", "run", { n = 1, bad = bad } end
        return "continue"
      end)
      local result, message = sb.perform("Twice", "run", { n = 5 })
      sb.unintercept(id)
      assert.is_nil(result)
      assert.matches("params of a decision", message)
    end
    assert.are.equal(10, sb.perform("Twice", "run", { n = 5 }))
    sb.unregister("Twice")
  end)
end)

-- A Lua target called from Lua in the same state gets a copy of the
-- caller's table (it crosses to C and back): what the target does to it is
-- never seen by the caller.
describe("a Lua target called from Lua", function()
  it("cannot change the caller's table, or a table nested in it", function()
    sb.target("Mutator", {
      mutate = function(p)
        p.n = 99
        p.inner.k = "changed"
        p.list[1] = "changed"
        p.added = true
        return p.n
      end,
    })
    local params = { n = 1, inner = { k = "v" }, list = { "a", "b" } }
    assert.are.equal(99, sb.perform("Mutator", "mutate", params))
    assert.are.same({ n = 1, inner = { k = "v" }, list = { "a", "b" } }, params)
    sb.unregister("Mutator")
  end)

  it("gets a function in its params as a callable C callback into this state", function()
    local seen
    sb.target("CallsBack", {
      run = function(p)
        seen = type(p.cb)
        return p.cb(p.n)
      end,
    })
    assert.are.equal(8, sb.perform("CallsBack", "run", { cb = function(x) return x * 2 end, n = 4 }))
    assert.are.equal("userdata", seen)
    sb.unregister("CallsBack")
  end)

  it("keeps the errors of values that cannot cross, before the target runs", function()
    local ran = false
    sb.target("NeverRuns", { run = function() ran = true end })
    local ok, err = pcall(sb.perform, "NeverRuns", "run", { u = io.stdout })
    assert.is_false(ok)
    assert.matches("cannot cross to C", err)
    local t = {}
    t.self = t
    ok, err = pcall(sb.perform, "NeverRuns", "run", { t = t })
    assert.is_false(ok)
    assert.matches("cycle", err)
    assert.is_false(ran)
    sb.unregister("NeverRuns")
  end)
end)
