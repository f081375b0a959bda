-- A stress run for valgrind memcheck (scripts/lua-tests.sh valgrind): every
-- path that allocates or frees across the Lua/C border, many times, then a
-- normal exit that closes the state. valgrind must find 0 errors and nothing
-- definitely lost.
local sb = require "switchboard"
local plugin = assert(os.getenv("SB_TEST_PLUGIN"))
local counter = assert(os.getenv("SB_TEST_COUNTER"))
local targets = assert(os.getenv("SB_TEST_TARGETS"))
assert(sb.load_plugin(plugin))
assert(sb.load_plugin(counter))
sb.path = targets .. "/?.lua"

sb.target("Stress", {
  echo = function(p) return p end,
  call = function(p) return p.cb(p.n) end,
  fail = function() error("expected failure") end,
  refuse = function() return nil, "refused", "EREJECTED" end,
})

local rounds = tonumber(os.getenv("SB_STRESS_ROUNDS") or "300")
for i = 1, rounds do
  -- conversions both ways, nested, with every kind
  local params = { n = i, f = i + 0.5, s = "s" .. i, b = "\255" .. i, t = true,
                   list = { 1, 2, { 3, sb.null } }, empty = sb.array({}), d = { k = { v = "x" } } }
  local back = assert(sb.perform("Echo", "params", params))
  assert(back.n == i and back.list[3][1] == 3)
  assert(sb.perform("Stress", "echo", params).d.k.v == "x")
  -- callbacks: Lua -> C -> Lua, C callbacks in Lua, callbacks kept and dropped
  assert(sb.perform("Echo", "call", { cb = function(x) return x + 1 end, arg = i }) == i + 1)
  local add = sb.perform("Echo", "adder", { n = i })
  assert(add(1) == i + 1)
  assert(sb.perform("Stress", "call", { cb = add, n = 2 }) == i + 2)
  -- failures
  assert(select(3, sb.perform("Stress", "fail")) == "EACTION")
  assert(select(3, sb.perform("Stress", "refuse")) == "EREJECTED")
  assert(select(3, sb.perform("Nobody", "x")) == "ENOTARGET")
  assert(not pcall(sb.perform, "Echo", "value", { [1] = 1, x = 2 }))
  local cyclic = {}
  cyclic.me = cyclic
  assert(not pcall(sb.perform, "Echo", "value", { value = cyclic }))
  -- cached plugin state, released
  sb.perform("Counter", "next", nil, { cache = true })
  if i % 10 == 0 then sb.release("Counter") end
  -- threads: a callback from a pthread, queued and polled
  if i % 25 == 0 then
    sb.perform("Threads", "callLater", { cb = function(x) return x end, arg = i })
    assert(sb.perform("Threads", "join") == "EQUEUED")
    assert(sb.poll() == 1)
  end
  -- targets found in files, forgotten, found again
  assert(sb.perform("Files", "hello", {}))
  if i % 50 == 0 then sb.unregister("Files") end
  -- re-registration replaces functions (the old ones are unreferenced)
  sb.target("Churn", { v = function() return i end })
  assert(sb.perform("Churn", "v") == i)
  if i % 20 == 0 then collectgarbage() end
end
-- A callback queued by another thread and never polled: dropped at close.
sb.perform("Threads", "callLater", { cb = function() end })
sb.perform("Threads", "join")
print(string.format("stress: %d rounds", rounds))
