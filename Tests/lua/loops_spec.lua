local sb = require "switchboard"
local helper = require "helper"

-- Event loops (issue 40): sb.perform_async's callbacks, delivered by
-- sb.poll() and never before the call returns; sb.open with a completion
-- and sb.perform_service suspend a coroutine as sb.perform does; errors
-- raised after a suspension reach sb.poll's second result, bounded.
sb.load_plugin(helper.plugin)

local function readable(ms)
  return sb.perform("Fd", "wait", { fd = assert(sb.fd()), ms = ms })
end

-- Polls (waiting on sb.fd()) until done() says so, at most 10 s; returns
-- the errors the polls listed.
local function drive(done)
  local deadline, errors = os.time() + 10, {}
  while not done() do
    assert(os.time() <= deadline, "nothing was delivered in 10 s")
    readable(200)
    local _, listed = sb.poll()
    for _, e in ipairs(listed or {}) do errors[#errors + 1] = e end
  end
  return errors
end

-- A Lua action that answers when the test says: returns the target's name
-- and the list of `complete` functions its calls left.
local function later_target()
  local name, kept = helper.name("Later"), {}
  sb.target(name, { ask = function() return sb.later(function(complete) kept[#kept + 1] = complete end) end })
  return name, kept
end

describe("sb.perform_async", function()
  it("calls back from sb.poll, never before it returns, also for an action that answers at once", function()
    local name = helper.name("Now")
    sb.target(name, { twice = function(p) return p.n * 2 end })
    local got
    assert.is_true(sb.perform_async(name, "twice", { n = 21 }, function(...) got = table.pack(...) end))
    assert.is_nil(got)
    assert.are.equal(1, sb.pending())
    assert.is_true(readable(0))
    assert.are.equal(1, sb.poll())
    assert.are.same({ n = 1, 42 }, got)
    assert.are.equal(0, sb.pending())
    assert.is_false(readable(0))
  end)

  it("calls back with nil, message, code on failure, and in the order the calls end", function()
    -- Ended in an order of the test's choosing, not by timers (which a
    -- loaded machine may run late): the second call, the third, the first.
    local name, kept = later_target()
    local order = {}
    sb.perform_async(name, "ask", nil, function(v) order[#order + 1] = v end)
    sb.perform_async(name, "ask", nil, function(v) order[#order + 1] = v end)
    sb.perform_async(name, "ask", nil, function(...) order[#order + 1] = table.pack(...) end)
    assert.are.equal(3, #kept)
    kept[2]("fast")
    kept[3](nil, "the disk is gone")
    kept[1]("slow")
    drive(function() return #order == 3 end)
    assert.are.equal("fast", order[1])
    assert.are.same({ n = 3, nil, "the disk is gone", "EACTION" }, order[2])
    assert.are.equal("slow", order[3])
    -- And a C action's answer from a worker thread, failing.
    local failed
    sb.perform_async("Later", "soon", { ms = 5, fail = "the disk is gone" }, function(...) failed = table.pack(...) end)
    drive(function() return failed ~= nil end)
    assert.are.same({ n = 3, nil, "the disk is gone", "EACTION" }, failed)
  end)

  it("takes the call options, and gives a Lua action answering later its answer", function()
    local name, kept = later_target()
    local got
    sb.perform_async(name, "ask", nil, function(...) got = table.pack(...) end, { tags = { "loop" } })
    assert.are.equal(1, #kept)
    kept[1]("answered")
    assert.is_nil(got)
    sb.poll()
    assert.are.same({ n = 1, "answered" }, got)
    local timed
    sb.perform_async("Later", "soon", { ms = 400, value = 1 }, function(...) timed = table.pack(...) end,
                     { timeout = 0.02 })
    drive(function() return timed ~= nil end)
    assert.are.equal("ETIMEOUT", timed[3])
  end)

  it("sends an error its callback raises to sb.poll's list", function()
    sb.perform_async("Later", "soon", { ms = 1, value = 1 }, function() error("boom in a callback") end)
    local errors = drive(function() return sb.pending() == 0 end)
    assert.are.equal(1, #errors)
    assert.truthy(errors[1]:find("boom in a callback", 1, true))
  end)

  it("checks its arguments", function()
    assert.has_error(function() sb.perform_async("T", "a", nil) end)
    assert.has_error(function() sb.perform_async("", "a", nil, print) end)
    assert.has_error(function() sb.perform_async("T", "a", 1, print) end)
    assert.has_error(function() sb.perform_async("T", "a", nil, print, 5) end)
  end)
end)

describe("calls that suspend a coroutine", function()
  it("sb.open with a completion suspends the coroutine, and calls the completion before it returns there", function()
    local name, kept = later_target()
    local seen, box = {}, {}
    coroutine.wrap(function()
      box.result = sb.open("app://" .. name .. "/ask", nil, function(info)
        seen[#seen + 1] = info
        assert.is_nil(box.result) -- before sb.open returned
      end)
    end)()
    assert.are.equal(1, #kept) -- the thread did not wait
    assert.are.equal(0, #seen)
    kept[1]("via url")
    sb.poll()
    assert.are.same({ { result = "via url" } }, seen)
    assert.are.equal("via url", box.result)
  end)

  it("sb.open with a completion reports a failure to it, and returns fail", function()
    local name, kept = later_target()
    local seen, box = {}, {}
    coroutine.wrap(function()
      box.results = table.pack(sb.open("app://" .. name .. "/ask", nil, function(info) seen[#seen + 1] = info end))
    end)()
    kept[1](nil, "refused later", "EREJECTED")
    sb.poll()
    assert.are.same({ { error = "refused later", code = "EREJECTED" } }, seen)
    assert.are.equal("EREJECTED", box.results[3])
  end)

  it("sb.perform_service suspends the coroutine", function()
    local name, kept = later_target()
    local service = helper.name("Asking")
    assert.is_true(sb.service(service, "ask( -> any)"))
    assert.is_true(sb.bind_service(service, name))
    local box = {}
    coroutine.wrap(function() box.result = sb.perform_service(service, "ask") end)()
    assert.are.equal(1, #kept)
    assert.is_nil(box.result)
    kept[1]("served")
    sb.poll()
    assert.are.equal("served", box.result)
    helper.row("Lua calls that answer later from this state (sb.later) made in a coroutine: sb.open with a completion, "
               .. "sb.perform_service", 3, "the coroutine suspends and sb.poll resumes it (EWOULDBLOCK before issue 40)")
  end)
end)

describe("errors raised after a suspension", function()
  it("are kept for the next sb.poll, at most 1,024, with a count of the rest", function()
    local name, kept = later_target()
    for i = 1, 1030 do
      coroutine.wrap(function()
        sb.perform(name, "ask")
        error("late " .. i, 0)
      end)()
    end
    for i = 1, 1030 do kept[i]("x") end
    local ran, errors = sb.poll()
    assert.are.equal(1030, ran)
    assert.are.equal(1025, #errors)
    assert.truthy(errors[1]:find("late 1", 1, true))
    assert.truthy(errors[1025]:find("6 more errors were dropped", 1, true))
    assert.are.same({ 0 }, { sb.poll() })
  end)
end)

describe("a scheduler that owns its coroutines (cqueues)", function()
  it("is never yielded to by sb.perform, which behaves there as outside a coroutine", function()
    local cqueues = require "cqueues"
    local name, kept = later_target()
    local now = helper.name("Now")
    sb.target(now, { time = function() return "noon" end })
    local got, at_once
    local loop = cqueues.new()
    loop:wrap(function()
      at_once = sb.perform(now, "time")
      got = table.pack(sb.perform(name, "ask")) -- only this thread could answer: at once, EWOULDBLOCK
    end)
    assert(loop:loop()) -- before issue 40: "attempt to yield from outside a coroutine"
    assert.are.equal("noon", at_once)
    assert.are.equal("EWOULDBLOCK", got[3])
    assert.are.equal(0, #kept)
    -- sb.perform_async is its way not to wait
    local answered
    loop:wrap(function()
      local condition = require "cqueues.condition"
      local cv = condition.new()
      sb.perform_async(name, "ask", nil, function(v) answered = v; cv:signal() end)
      cv:wait()
    end)
    loop:wrap(function()
      cqueues.poll(0.01)
      kept[1]("later")
      cqueues.poll({ pollfd = assert(sb.fd()), events = "r" })
      sb.poll()
    end)
    assert(loop:loop())
    assert.are.equal("later", answered)
  end)
end)
