local sb = require "switchboard"
local helper = require "helper"

sb.load_plugin(helper.plugin)

describe("callbacks", function()
  it("a Lua function in params is called by a C target, and its result comes back", function()
    assert.are.equal(42, sb.perform("Echo", "call", { cb = function(x) return x * 2 end, arg = 21 }))
  end)

  it("a Lua callback's error reaches the C caller as EACTION with the message", function()
    local result, message, code = sb.perform("Echo", "call", { cb = function() error("bad callback") end, arg = 1 })
    assert.is_nil(result)
    assert.are.equal("EACTION", code)
    assert.matches("bad callback", message)
  end)

  it("a Lua callback can fail with nil, message, code", function()
    local _, message, code = sb.perform("Echo", "call", { cb = function() return nil, "no way", "EREJECTED" end })
    assert.are.equal("no way", message)
    assert.are.equal("EREJECTED", code)
  end)

  it("a C callback reaching Lua is callable", function()
    local add5 = sb.perform("Echo", "adder", { n = 5 })
    assert.are.equal("userdata", type(add5))
    assert.matches("^switchboard.callback: ", tostring(add5))
    assert.are.equal(15, add5(10))
    local result, message, code = add5("ten")
    assert.is_nil(result)
    assert.are.equal("ETYPE", code)
    assert.matches("needs an int", message)
  end)

  it("a C callback passed back to C keeps its identity", function()
    local add1 = sb.perform("Echo", "adder", { n = 1 })
    assert.are.equal(add1, sb.perform("Echo", "value", { value = add1 }))
    assert.are.equal(8, sb.perform("Echo", "call", { cb = add1, arg = 7 }))
  end)

  it("callbacks nest: Lua calls C which calls Lua", function()
    local name = helper.name("Nest")
    sb.target(name, { run = function(p) return p.cb(p.n) + 1 end })
    local got = sb.perform("Echo", "call", {
      arg = 10,
      cb = function(n) return sb.perform(name, "run", { n = n, cb = function(x) return x * 3 end }) end,
    })
    assert.are.equal(31, got)
  end)

  it("a callback called from another thread is queued and runs at sb.poll()", function()
    local seen = {}
    assert.is_true(sb.perform("Threads", "callLater", { cb = function(x) seen[#seen + 1] = x end, arg = "from a pthread" }))
    -- The pthread got SB_EQUEUED at once, without waiting for this state.
    assert.are.equal("EQUEUED", sb.perform("Threads", "join"))
    assert.are.same({}, seen) -- nothing ran concurrently with this state
    assert.are.equal(1, sb.poll())
    assert.are.same({ "from a pthread" }, seen)
    assert.are.equal(0, sb.poll())
  end)

  it("sb.poll(max) runs at most max calls, and reports errors", function()
    local count = 0
    for _ = 1, 3 do
      sb.perform("Threads", "callLater", { cb = function() count = count + 1 end })
      sb.perform("Threads", "join")
    end
    sb.perform("Threads", "callLater", { cb = function() error("late failure") end })
    sb.perform("Threads", "join")
    assert.are.equal(2, sb.poll(2))
    assert.are.equal(2, count)
    local ran, errors = sb.poll()
    assert.are.equal(2, ran)
    assert.are.equal(3, count)
    assert.is_table(errors)
    assert.matches("late failure", errors[1])
  end)

  it("a Lua target performed from another thread is queued, and its caller gets the answer (issue 40)", function()
    local name = helper.name("Worker")
    local calls = 0
    sb.target(name, { work = function() calls = calls + 1 return "worked" end })
    assert.is_true(sb.perform("Threads", "performLater", { target = name, action = "work" }))
    -- The thread waits for its answer, which this thread's sb.poll() gives.
    for _ = 1, 2000 do
      if sb.poll() > 0 then break end
      sb.perform("Fd", "wait", { fd = assert(sb.fd()), ms = 10 })
    end
    assert.are.equal(1, calls)
    assert.are.equal("OK", sb.perform("Threads", "join"))
  end)

  it("a C thread's asynchronous call of a Lua action, or of one answering with sb.later, gets its answer in done", function()
    local name = helper.name("AsyncWorker")
    local finish
    sb.target(name, {
      now = function(p) return p.n * 2 end,
      later = function() return sb.later(function(complete) finish = complete end) end,
    })
    assert.is_true(sb.perform("Threads", "performAsync", { target = name, action = "now", n = 21 }))
    local function settle()
      for _ = 1, 2000 do
        local got = sb.perform("Threads", "asyncResult")
        if got ~= sb.null then return got end
        sb.poll()
        sb.perform("Fd", "wait", { fd = assert(sb.fd()), ms = 10 })
      end
    end
    local got = settle()
    assert.are.equal("OK", got.status)
    assert.are.equal(42, got.result)
    assert.is_true(sb.perform("Threads", "performAsync", { target = name, action = "later", n = 1 }))
    for _ = 1, 2000 do
      sb.poll()
      if finish then break end
      sb.perform("Fd", "wait", { fd = assert(sb.fd()), ms = 10 })
    end
    assert.is_function(finish)
    assert.is_true(finish("answered later"))
    got = settle()
    assert.are.equal("OK", got.status)
    assert.are.equal("answered later", got.result)
    helper.row("a C thread calling a Lua action (plain, and one answering with sb.later) with sb_action_perform_async", 2,
               "done gets the action's answer (SB_EQUEUED before issue 40)")
  end)

  it("a C callback called from another thread runs there, not queued", function()
    sb.perform("Threads", "callLater", { cb = sb.perform("Echo", "adder", { n = 0 }), arg = 1 })
    assert.are.equal("OK", sb.perform("Threads", "join"))
    assert.are.equal(0, sb.poll())
  end)
end)
