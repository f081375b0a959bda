-- sb.perform to a Lua action of the same state copies the caller's table in
-- Lua instead of converting it to C values and back (direct.c). These specs
-- run every scenario twice, through that path and through the general one
-- (options given, even empty ones, always take it), and require the same
-- log: results, errors and their texts, what the target saw (keys in pairs
-- order, types, metatables, sharing), and the caller's table afterwards.
local sb = require "switchboard"
local helper = require "helper"

-- nil: the direct path where it applies; {}: the general path.
local OPTS
local function perform(target, action, params)
  return sb.perform(target, action, params, OPTS)
end

local function dump(v, seen)
  seen = seen or { n = 0 }
  if v == sb.null then return "null" end
  local t = type(v)
  if t == "number" then return math.type(v) .. ":" .. string.format("%q", v) end
  if t == "string" then return string.format("%q", v) end
  if t == "table" then
    if seen[v] then return "<table " .. seen[v] .. ">" end
    seen.n = seen.n + 1
    seen[v] = seen.n
    local parts = {}
    for k, x in pairs(v) do parts[#parts + 1] = dump(k, seen) .. "=" .. dump(x, seen) end
    local mt = getmetatable(v)
    local shown = type(mt) == "table" and "a table" or tostring(mt) -- a locked one says its name
    return "{" .. (mt ~= nil and ("mt " .. shown .. ";") or "") .. table.concat(parts, ",") .. "}"
  end
  if t == "userdata" then return "userdata " .. tostring(getmetatable(v)) end
  return t .. (t == "boolean" and (":" .. tostring(v)) or "")
end

local function packed(...)
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do parts[i] = dump((select(i, ...))) end
  return n .. ": " .. table.concat(parts, " | ")
end

-- Runs scenario(log) through both paths; the two logs must be equal, and
-- not empty.
local function both(scenario)
  local logs = {}
  for run, opts in ipairs({ false, {} }) do
    OPTS = opts or nil
    local log = {}
    local ok, err = pcall(scenario, function(...) log[#log + 1] = table.concat({ ... }, " ") end)
    log[#log + 1] = "scenario: " .. tostring(ok) .. " " .. tostring(err)
    logs[run] = log
  end
  OPTS = nil
  assert.is_true(#logs[1] > 1)
  assert.are.same(logs[2], logs[1])
  return logs[1]
end

-- A target that logs what it got, changes it, and returns `answer(p)`.
local function recorder(log, answer)
  return function(p)
    log("saw", dump(p))
    if type(p) == "table" then
      p.changed = true
      for _, v in pairs(p) do
        if type(v) == "table" and getmetatable(v) == nil then v.inner_changed = 1 end
      end
    end
    return answer(p)
  end
end

local function call_logged(log, target, action, params)
  log("call", target, action, dump(params))
  log("got", packed(perform(target, action, params)))
  log("caller's table after", dump(params))
end

describe("sb.perform to a Lua target, direct and general paths", function()
  after_each(function() OPTS = nil end)

  it("pass the same params, whatever their shape", function()
    local log = both(function(log)
      sb.target("DirectShapes", { echo = recorder(log, function(p) return p end) })
      local shared = { s = 1 }
      local cases = {
        { n = 1 }, {}, nil,
        { a = 1, b = "x", c = true, d = 1.5, e = sb.null, f = false, g = -0.0, h = 0 / 0, i = math.huge },
        { big = math.maxinteger, small = math.mininteger, float = 2 ^ 53, three = 3.0 },
        { x = { y = { z = { 1, 2, { w = "deep" } } } } },
        { list = { 1, "two", 3.0, sb.null, { k = "v" } }, empty = {} },
        { one = shared, two = shared },
        { zeta = 1, alpha = 2, Mid = 3, ["a b"] = 4, ["_"] = 5, aa = 6, a = 7 },
        { s = "with \0 NUL", bytes = "\255\254", utf8 = "é" },
      }
      for i = 1, #cases + 1 do call_logged(log, "DirectShapes", "echo", cases[i]) end
      sb.unregister("DirectShapes")
    end)
    assert.is_true(#log > 20)
  end)

  it("treat the params the general path refuses or converts otherwise the same way", function()
    both(function(log)
      sb.target("DirectOdd", { echo = recorder(log, function(p) return p end) })
      local cycle = {}
      cycle.self = cycle
      local deep = {}
      local at = deep
      for _ = 1, 10 do at.next = {}; at = at.next end
      local many = {}
      for i = 1, 40 do many["k" .. i] = i end
      local long = string.rep("x", 40000)
      local weak = setmetatable({ a = {} }, { __mode = "v" })
      local cases = {
        { self = cycle }, deep, many, { long = long }, { ["é"] = 1 }, { ["a\0b"] = 1 }, { [""] = 1 },
        { 1, 2, 3 }, { 1, x = 2 }, { [1] = 1, [3] = 3 }, { [1.5] = 1 }, { [true] = 1 },
        { arr = sb.array({}) }, sb.array({}), setmetatable({ n = 1 }, { __index = { m = 2 } }), weak,
        { ud = io.stdout }, { co = coroutine.create(function() end) },
        { ["switchboard.module"] = "Nowhere" }, { ["switchboard.module"] = "" },
        { kCTMediatorParamsKeySwiftTargetModuleName = "Nowhere" },
        { pointer = sb.null, nested = { sb.null } },
      }
      for i = 1, #cases do
        log("case", i, tostring(pcall(call_logged, log, "DirectOdd", "echo", cases[i])))
      end
      -- A callback in the params: the target calls it.
      sb.target("DirectCallback", { call = function(p) return p.cb(20) end })
      log("callback", packed(perform("DirectCallback", "call", { cb = function(x) return x + 1 end })))
      sb.unregister("DirectOdd")
      sb.unregister("DirectCallback")
    end)
  end)

  it("give back the same results and failures", function()
    both(function(log)
      local answers = {
        table = function(p) return { got = p, list = { 1, 2 } } end,
        none = function() end,
        nil_ = function() return nil end,
        false_ = function() return false end,
        zero = function() return 0 end,
        float = function() return 1.5 end,
        nan = function() return 0 / 0 end,
        string = function() return "s\0s" end,
        long = function() return string.rep("y", 40000) end,
        null = function() return sb.null end,
        several = function() return 1, 2, 3, 4 end,
        failure = function() return nil, "it failed" end,
        failure_code = function() return nil, "not here", "ENOTARGET" end,
        failure_bogus = function() return nil, "odd", "EBOGUS" end,
        failure_ok = function() return nil, "ok?", "OK" end,
        nil_number = function() return nil, 42 end,
        raise = function() error("boom") end,
        raise_table = function() error({}) end,
        raise_tostring = function() error(setmetatable({}, { __tostring = function() return "shown" end })) end,
        raise_nul = function() error("a\0b", 0) end,
        raise_nil = function() error(nil) end,
        fn = function() return function() return 7 end end,
        thread = function() return coroutine.create(function() end) end,
        cycle = function() local t = {}; t.t = t; return t end,
        pointer = function() return io.stdout end,
        later = function() return sb.later(function(complete) complete(1) end) end,
        cancelled = function() return sb.cancelled() end,
      }
      sb.target("DirectResults", answers)
      local names = {}
      for name in pairs(answers) do names[#names + 1] = name end
      table.sort(names)
      for _, name in ipairs(names) do
        local r = table.pack(perform("DirectResults", name, { n = 1 }))
        if type(r[1]) == "userdata" and getmetatable(r[1]) ~= nil and name == "fn" then
          log(name, "callable", packed(r[1]({})))
        else
          log(name, packed(table.unpack(r, 1, r.n)))
        end
      end
      sb.unregister("DirectResults")
    end)
  end)

  it("keep the depth limit and re-entrancy the same", function()
    both(function(log)
      local function rec(p)
        if p.n == 0 then return 0 end
        local r, message, code = perform("DirectRec", "rec", { n = p.n - 1 })
        if r == nil then return nil, message, code end
        return r + 1
      end
      sb.target("DirectRec", { rec = rec })
      for _, n in ipairs({ 1, 10, 150, 5000 }) do
        log("rec", n, packed(perform("DirectRec", "rec", { n = n })))
      end
      -- A target that calls itself through sb.perform until something stops it.
      sb.target("DirectLoop", { loop = function(p) return perform("DirectLoop", "loop", p) end })
      local r, message, code = perform("DirectLoop", "loop", { n = 1 })
      log("loop", tostring(r), code, (message or ""):gsub("\n.*", ""))
      sb.unregister("DirectRec")
      sb.unregister("DirectLoop")
    end)
  end)

  it("see registry changes between calls and during one", function()
    both(function(log)
      local target = "DirectChanges"
      sb.target(target, { a = function(p) return p.n end })
      log("1", packed(perform(target, "a", { n = 1 })))
      sb.target(target, { a = function(p) return p.n * 10 end })
      log("2", packed(perform(target, "a", { n = 1 })))
      log("missing action", packed(perform(target, "b", { n = 1 })))
      sb.unregister(target)
      log("unregistered", packed(perform(target, "a", { n = 1 })))
      -- Unregistering, replacing and evicting from inside the call.
      sb.target(target, {
        gone = function(p)
          log("unregister inside", tostring(sb.unregister(target)))
          return p.n
        end,
      })
      log("3", packed(perform(target, "gone", { n = 3 })))
      log("after", packed(perform(target, "gone", { n = 3 })))
      sb.target(target, {
        swap = function(p)
          sb.target(target, { swap = function(q) return "new " .. q.n end })
          log("release inside", packed(sb.release(target)))
          return "old " .. p.n
        end,
      })
      log("4", packed(perform(target, "swap", { n = 4 })))
      log("5", packed(perform(target, "swap", { n = 5 })))
      -- A contract, an interceptor, an observer: the general path either way.
      sb.target(target, { typed = { fn = function(p) return p.n end, params = "n: int" } })
      log("contract", packed(perform(target, "typed", { n = 6 })))
      log("contract refused", packed(perform(target, "typed", { n = "six" })))
      sb.target(target, { a = function(p) return p.n end })
      local id = sb.intercept(0, function() return "continue" end, { name = "pass" })
      log("intercepted", packed(perform(target, "a", { n = 7 })))
      sb.unintercept(id)
      local seen = 0
      id = sb.observe(function() seen = seen + 1 end)
      log("observed", packed(perform(target, "a", { n = 8 })), seen)
      sb.unobserve(id)
      log("after hooks", packed(perform(target, "a", { n = 9 })))
      -- A C target and a missing one answer as before.
      log("NoTargetAction absent", packed(perform("DirectNobody", "x", { n = 1 })))
      sb.unregister(target)
    end)
  end)

  it("keep the key order a table made from a dict remembers", function()
    assert.is_true(sb.load_plugin(helper.plugin))
    local logged = both(function(log)
      local ordered = assert(sb.perform("Echo", "ordered"))
      local function keys(value) return sb.perform("Echo", "keys", { value = value }) end
      sb.target("DirectOrder", {
        nested = function(p) return keys(p.value) end,
        whole = function(p) return keys(p) end,
      })
      log("nested", packed(perform("DirectOrder", "nested", { value = ordered })))
      log("inner", packed(perform("DirectOrder", "nested", { value = ordered.inner })))
      log("whole", packed(perform("DirectOrder", "whole", ordered)))
      ordered.added = 1
      log("added", packed(perform("DirectOrder", "whole", ordered)))
      sb.unregister("DirectOrder")
    end)
    assert.matches('1="zeta",integer:2="alpha",integer:3="mid"', logged[3], 1, true)
  end)

  it("run in a coroutine that may yield, and in one that may not", function()
    both(function(log)
      sb.target("DirectCo", { a = function(p) return p.n + 1 end })
      local co = coroutine.wrap(function() return packed(perform("DirectCo", "a", { n = 1 })) end)
      log("coroutine", co())
      -- Inside gsub's C frame the coroutine cannot yield: the call blocks.
      co = coroutine.wrap(function()
        return (string.gsub("x", "x", function() return packed(perform("DirectCo", "a", { n = 2 })) end))
      end)
      log("not yieldable", co())
      sb.unregister("DirectCo")
    end)
  end)
end)
