local sb = require "switchboard"
local helper = require "helper"

-- Callers that do not wait (issue 21): inside a coroutine, sb.perform of an
-- action that answers later suspends the coroutine, and sb.poll() resumes
-- it with what sb.perform returns; sb.later lets a Lua action answer later;
-- sb.fd() tells an event loop when to poll.
sb.load_plugin(helper.plugin)

-- Whether sb.fd() becomes readable within ms milliseconds (poll(2) in C).
local function readable(ms)
  return sb.perform("Fd", "wait", { fd = assert(sb.fd()), ms = ms })
end

-- Waits on sb.fd() and polls until done() says so (at most 10 s).
local function drive(done)
  local deadline = os.time() + 10
  while not done() do
    assert(os.time() <= deadline, "nothing resumed the coroutines in 10 s")
    readable(200)
    sb.poll()
  end
end

-- Starts fn in a coroutine; returns a table that gets fn's results.
local function start(fn, ...)
  local box = { done = false }
  local co = coroutine.create(function(...)
    box.results = table.pack(fn(...))
    box.done = true
  end)
  box.co = co
  local ok, err = coroutine.resume(co, ...)
  assert(ok, err)
  return box
end

local function finished(box) return function() return box.done end end

describe("sb.perform in a coroutine", function()
  it("returns at once what sb.perform returns when the action answers at once", function()
    local name = helper.name("Now")
    sb.target(name, { twice = function(p) return p.n * 2 end })
    local box = start(sb.perform, name, "twice", { n = 21 })
    assert.is_true(box.done)
    assert.are.same({ n = 1, 42 }, box.results)
    assert.are.equal(0, sb.pending())
    local failed = start(sb.perform, name, "missing")
    assert.is_true(failed.done)
    assert.is_nil(failed.results[1])
    assert.are.equal("ENOACTION", failed.results[3])
  end)

  it("suspends while a C action works on another thread, and sb.poll resumes it with the value", function()
    local box = start(sb.perform, "Later", "soon", { ms = 20, value = "late" })
    assert.is_false(box.done)
    assert.are.equal("suspended", coroutine.status(box.co))
    assert.are.equal(1, sb.pending())
    drive(finished(box))
    assert.are.same({ n = 1, "late" }, box.results)
    assert.are.equal(0, sb.pending())
  end)

  it("resumes coroutines in the order their calls end", function()
    local order = {}
    local boxes = {}
    for _, spec in ipairs({ { "a", 150 }, { "b", 10 }, { "c", 80 } }) do
      boxes[#boxes + 1] = start(function()
        local v = sb.perform("Later", "soon", { ms = spec[2], value = spec[1] })
        order[#order + 1] = v
      end)
    end
    drive(function() return #order == 3 end)
    assert.are.same({ "b", "c", "a" }, order)
  end)

  it("resumes with nil, message, code when the action fails", function()
    local box = start(sb.perform, "Later", "soon", { ms = 5, fail = "the disk is gone" })
    drive(finished(box))
    assert.is_nil(box.results[1])
    assert.are.equal("the disk is gone", box.results[2])
    assert.are.equal("EACTION", box.results[3])
  end)

  it("resumes with ETIMEOUT past the timeout option", function()
    local box = start(sb.perform, "Later", "soon", { ms = 400, value = 1 }, { timeout = 0.03 })
    assert.is_false(box.done)
    drive(finished(box))
    assert.is_nil(box.results[1])
    assert.are.equal("ETIMEOUT", box.results[3])
  end)

  it("resumes with ECANCELED when its token is cancelled while it waits", function()
    local token = sb.cancellation()
    local box = start(sb.perform, "Later", "soon", { ms = 400, value = 1 }, { cancel = token })
    assert.is_false(box.done)
    token:cancel()
    drive(finished(box))
    assert.are.equal("ECANCELED", box.results[3])
  end)

  it("waits as before outside a coroutine", function()
    assert.are.equal("late", sb.perform("Later", "soon", { ms = 10, value = "late" }))
  end)

  it("suspends sb.open of a URL too", function()
    local box = start(sb.open, "app://Later/soon", { ms = 10, value = "by url" })
    assert.is_false(box.done)
    drive(finished(box))
    assert.are.equal("by url", box.results[1])
  end)

  it("stays suspended when a script resumes it before its call ended", function()
    local box = start(sb.perform, "Later", "soon", { ms = 50, value = "x" })
    assert.is_true(coroutine.resume(box.co))
    assert.are.equal("suspended", coroutine.status(box.co))
    drive(finished(box))
    assert.are.equal("x", box.results[1])
  end)

  it("reports an error raised by a resumed coroutine in sb.poll's list", function()
    local box = start(function()
      sb.perform("Later", "soon", { ms = 5 })
      error("boom after the call")
    end)
    assert.is_false(box.done)
    local errors
    local deadline = os.time() + 10
    while coroutine.status(box.co) ~= "dead" and os.time() <= deadline do
      readable(200)
      local _, e = sb.poll()
      errors = errors or e
    end
    assert.truthy(errors and errors[1]:find("boom after the call", 1, true))
  end)

  it("lets a resumed coroutine call sb.poll itself, and find what its caller had not run yet", function()
    local slow = helper.name("Slow")
    local kept = {}
    sb.target(slow, { answer = function() return sb.later(function(complete) kept[#kept + 1] = complete end) end })
    local inner = start(sb.perform, slow, "answer")
    local outer = start(function()
      local v = sb.perform(slow, "answer")
      for _ = 1, 100 do -- inner's resume is queued behind this one's
        if inner.done then break end
        sb.poll()
      end
      return v
    end)
    kept[2]("outer") -- queued first
    kept[1]("inner")
    assert.are.equal(1, sb.poll()) -- outer; it ran inner itself
    assert.is_true(outer.done)
    assert.are.equal("outer", outer.results[1])
    assert.are.equal("inner", inner.results[1])
    helper.row("Lua coroutine resumed by sb.poll calls sb.poll until another coroutine queued after it is resumed", 1,
               "the inner poll runs it (items are taken one at a time); the outer poll does not run it twice")
  end)

  it("lets go of a coroutine closed while its call is pending", function()
    local box = start(sb.perform, "Later", "soon", { ms = 10, value = "nobody" })
    assert.is_true(coroutine.close(box.co))
    collectgarbage()
    assert.are.equal(0, sb.pending())
    assert.is_true(readable(5000)) -- the call ends: nobody to resume
    assert.are.equal(0, sb.poll())
    assert.is_false(box.done)
    helper.row("Lua coroutine closed (coroutine.close) while its call is pending", 1,
               "let go at once (sb.pending() 0); the call's late answer resumes nothing and is freed")
  end)
end)

describe("sb.later", function()
  local name = helper.name("Slow")
  local kept = {}
  sb.target(name, {
    answer = function() return sb.later(function(complete) kept[#kept + 1] = complete end) end,
    broken = function() return sb.later(function() error("no way to answer") end) end,
  })

  it("answers a coroutine's call when complete is called", function()
    local box = start(sb.perform, name, "answer")
    assert.is_false(box.done)
    local complete = table.remove(kept)
    assert.is_true(complete({ v = 42 }))
    sb.poll()
    assert.are.same({ v = 42 }, box.results[1])
  end)

  it("refuses a second answer with nil, message, code", function()
    local box = start(sb.perform, name, "answer")
    local complete = table.remove(kept)
    assert.is_true(complete(1))
    local ok, message, code = complete(2)
    assert.is_nil(ok)
    assert.are.equal("ENOTFOUND", code) -- the call is no longer open
    assert.is_string(message)
    sb.poll()
    assert.are.equal(1, box.results[1])
  end)

  it("fails the call with complete(nil, message, status)", function()
    local box = start(sb.perform, name, "answer")
    assert.is_true(table.remove(kept)(nil, "no such order", "EPARAMS"))
    sb.poll()
    assert.are.same({ n = 3, nil, "no such order", "EPARAMS" }, box.results)
  end)

  it("fails with EWOULDBLOCK a caller that waits on the state's own thread", function()
    local before = #kept
    local result, message, code = sb.perform(name, "answer")
    assert.is_nil(result)
    assert.are.equal("EWOULDBLOCK", code)
    assert.truthy(message:find("coroutine", 1, true))
    assert.are.equal(before, #kept) -- fn never ran
    helper.row("Lua action answering later (sb.later) called by sb.perform outside a coroutine", 1,
               "EWOULDBLOCK at once, saying to call from a coroutine, instead of a wait that could never end")
  end)

  it("fails the call when fn raises", function()
    local box = start(sb.perform, name, "broken")
    assert.is_true(box.done)
    assert.are.equal("EACTION", box.results[3])
    assert.truthy(box.results[2]:find("no way to answer", 1, true))
  end)

  it("fails the call when complete is collected before it answered", function()
    local box = start(sb.perform, name, "answer")
    table.remove(kept) -- dropped unanswered
    collectgarbage()
    collectgarbage()
    sb.poll()
    assert.is_true(box.done)
    assert.are.equal("EACTION", box.results[3])
    assert.truthy(box.results[2]:find("collected", 1, true))
  end)

  it("can be completed from inside another action", function()
    local finisher = helper.name("Finisher")
    sb.target(finisher, { go = function(p) return (table.remove(kept)(p.value)) end })
    local box = start(sb.perform, name, "answer")
    assert.is_true(sb.perform(finisher, "go", { value = "inside" }))
    sb.poll()
    assert.are.equal("inside", box.results[1])
  end)

  it("resumes 20,000 waiting coroutines (more than SB_LUA_MAX_QUEUED) in completion order", function()
    local order = {}
    local n = 20000
    for i = 1, n do
      start(function()
        local v = sb.perform(name, "answer", { i = i })
        order[#order + 1] = v
      end)
    end
    assert.are.equal(n, sb.pending())
    -- completed backwards (the last one asked answers first), each with
    -- its place in the completion order
    local completes = {}
    for i = 1, n do completes[i] = table.remove(kept) end
    for i = 1, n do assert(completes[i](i)) end
    assert.are.equal(n, sb.poll())
    assert.are.equal(n, #order)
    for i = 1, n do assert(order[i] == i) end
    assert.are.equal(0, sb.pending())
    helper.row("Lua coroutines suspended on calls at once, past SB_LUA_MAX_QUEUED, completed in reverse order", n,
               "every resume queued (none refused), all resumed by one sb.poll in completion order")
  end)
end)

describe("sb.fd", function()
  it("is the same descriptor each time", function()
    assert.are.equal(sb.fd(), sb.fd())
  end)

  it("becomes readable when a call ends on another thread, and sb.poll drains it", function()
    sb.poll()
    assert.is_false(readable(0))
    local box = start(sb.perform, "Later", "soon", { ms = 20, value = 7 })
    assert.is_true(readable(5000))
    assert.is_false(box.done) -- readable says: poll now
    assert.are.equal(1, sb.poll())
    assert.is_true(box.done)
    assert.is_false(readable(0))
  end)

  it("becomes readable for a call queued from another thread", function()
    sb.poll()
    local ran = false
    assert.is_true(sb.perform("Threads", "callLater", { cb = function() ran = true end }))
    assert.is_true(readable(5000))
    sb.poll()
    assert.is_true(ran)
    assert.are.equal("EQUEUED", sb.perform("Threads", "join"))
  end)
end)
