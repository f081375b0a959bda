-- The Lua benchmarks. Each case is timed against a plain call of the same
-- shape measured in the same run: REPS repetitions, alternating case and
-- baseline, each over ITER calls; one JSON object per line with the medians
-- in ns/call (CPU time, os.clock). scripts/bench.sh runs it.
--
--   lua5.4 bench.lua ITER REPS PLUGIN          all cases
--   lua5.4 bench.lua --one CASE ITER PLUGIN    one case, untimed, for callgrind:
--                                              plain, perform_c, plain3, perform_lua,
--                                              plain_prebuilt, perform_lua_prebuilt,
--                                              call_idle, call_queued, poll,
--                                              register, register_targets (ITER actions)
--   lua5.4 bench.lua --require                 how long require "switchboard" took (ms)

if arg[1] == "--require" then
  local t0 = os.clock()
  require "switchboard"
  print(string.format("%.3f", (os.clock() - t0) * 1e3))
  return
end

local sb = require "switchboard"

local function usage()
  io.stderr:write("usage: bench.lua ITER REPS PLUGIN | bench.lua --one CASE ITER PLUGIN | bench.lua --require\n")
  os.exit(2)
end

local one = arg[1] == "--one"
local iterations = math.tointeger(tonumber(one and arg[3] or arg[1]))
local reps = one and 1 or math.tointeger(tonumber(arg[2]))
local plugin = one and arg[4] or arg[3]
if not iterations or iterations < 1 or not reps or reps < 1 or not plugin then usage() end
assert(sb.load_plugin(plugin))

-- Baselines: plain Lua functions doing what the targets do.
local function plain_sum3(p) return p.a + p.b + p.c end
local function plain_twice(p) return p.n * 2 end
local function plain_add_one(n) return n + 1 end

sb.target("LuaBench", { twice = function(p) return p.n * 2 end })
local add_one_in_c = assert(sb.perform("Bench", "adder"))
local perform = sb.perform
local sink = 0

-- Registration: one sb.target with `iterations` actions, against as many
-- sb.target calls of one action each; names and tables made once, before.
local registration = setmetatable({}, { __index = function(t, key)
  local actions, names = {}, {}
  for i = 1, iterations do
    actions["a" .. i] = plain_twice
    names[i] = "T" .. i
  end
  t.actions, t.names = actions, names
  return rawget(t, key)
end })
local one_action = { twice = plain_twice }

-- Each runner makes `iterations` calls (or registrations).
local runners = {
  plain3 = function()
    for i = 1, iterations do sink = sink + plain_sum3({ a = i, b = 2, c = 3 }) end
  end,
  perform_c = function()
    for i = 1, iterations do sink = sink + perform("Bench", "sum3", { a = i, b = 2, c = 3 }) end
  end,
  plain = function()
    for i = 1, iterations do sink = sink + plain_twice({ n = i }) end
  end,
  perform_lua = function()
    for i = 1, iterations do sink = sink + perform("LuaBench", "twice", { n = i }) end
  end,
  -- The same with one table made before the loop (issue 23's "prebuilt").
  plain_prebuilt = function()
    local params = { n = 1 }
    for _ = 1, iterations do sink = sink + plain_twice(params) end
  end,
  perform_lua_prebuilt = function()
    local params = { n = 1 }
    for _ = 1, iterations do sink = sink + perform("LuaBench", "twice", params) end
  end,
  plain_callback = function()
    for i = 1, iterations do sink = sink + plain_add_one(i) end
  end,
  lua_to_c = function()
    for i = 1, iterations do sink = sink + add_one_in_c(i) end
  end,
  register = function()
    assert(sb.target("Big", registration.actions))
    assert(sb.unregister("Big"))
  end,
  register_targets = function()
    local names = registration.names
    for i = 1, iterations do assert(sb.target(names[i], one_action)) end
    for i = 1, iterations do assert(sb.unregister(names[i])) end
  end,
  -- C calling a Lua function: one perform makes `iterations` callbacks.
  c_to_lua = function()
    sink = sink + perform("Bench", "callback", { cb = plain_add_one, n = 1, times = iterations })
  end,
}

-- Work queued for this state by calls that ended: `count` coroutines wait
-- on a Lua action that answers later, and all are answered, so `count`
-- resumes wait for sb.poll(). Each resumed coroutine makes one trivial call.
local QUEUED = 20000
local function queue_resumes(count)
  local kept = {}
  sb.target("LuaLater", { wait = function() return sb.later(function(c) kept[#kept + 1] = c end) end })
  for _ = 1, count do
    coroutine.wrap(function()
      sb.perform("LuaLater", "wait")
      sink = sink + perform("Bench", "twice", { n = 1 })
    end)()
  end
  for i = 1, count do kept[i](i) end
end

-- Runs fn inside Bench.measured, the only part callgrind counts in these
-- cases (scripts/bench.sh): setting up 20,000 coroutines costs ~550M
-- instructions, whose run-to-run noise (Lua seeds its string hashes per
-- run) would swamp the calls. The collector is stopped meanwhile: its pace
-- depends on the heap's size, which the waiting coroutines change.
local function measured(fn)
  collectgarbage("collect")
  collectgarbage("stop")
  perform("Bench", "measured", { cb = fn })
  collectgarbage("restart")
end

-- A trivial call (a C action, params of one key), with nothing queued and
-- with QUEUED resumes waiting: the two must cost the same.
local function trivial_calls()
  for i = 1, iterations do sink = sink + perform("Bench", "twice", { n = i }) end
end
runners.call_idle = function()
  trivial_calls() -- warm-up, counted in neither
  measured(trivial_calls)
end
runners.call_queued = function()
  queue_resumes(QUEUED)
  trivial_calls() -- the first calls after the 20,000 ended let go of what they held
  measured(trivial_calls)
end
-- One sb.poll() over `iterations` resumes (scripts/bench.sh: 20,000), each
-- resumed coroutine making its trivial call.
runners.poll = function()
  queue_resumes(iterations)
  measured(function() assert(sb.poll() == iterations) end)
end

if one then
  local run = runners[arg[2]] or usage()
  run()
  return
end

local function median(t)
  table.sort(t)
  local n = #t
  return n % 2 == 1 and t[(n + 1) // 2] or (t[n // 2] + t[n // 2 + 1]) / 2
end

local function timed(run)
  local t0 = os.clock()
  run()
  return (os.clock() - t0) * 1e9 / iterations
end

local function measure(id, name, baseline_name, run, baseline)
  run()
  baseline() -- warm-up
  local runs, bases = {}, {}
  for r = 1, reps do
    bases[r] = timed(baseline)
    runs[r] = timed(run)
  end
  local ns, base = median(runs), median(bases)
  print(string.format('{"id": "%s", "case": "%s", "baseline": "%s", "ns": %.2f, "baseline_ns": %.2f, '
    .. '"ratio": %.3f, "above_ns": %.2f, "reps": %d, "iterations": %d}',
    id, name, baseline_name, ns, base, ns / base, ns - base, reps, iterations))
  io.stdout:flush()
end

measure("lua.perform_c", "Lua sb.perform -> C target, 3-key table", "plain Lua function call, same table",
  runners.perform_c, runners.plain3)
measure("lua.perform_lua", "Lua sb.perform -> Lua target", "plain Lua function call",
  runners.perform_lua, runners.plain)
measure("lua.perform_lua_prebuilt", "Lua sb.perform -> Lua target, table made once", "plain Lua function call, same table",
  runners.perform_lua_prebuilt, runners.plain_prebuilt)
measure("lua.lua_to_c", "callback Lua -> C (a C callback called from Lua)", "plain Lua function call",
  runners.lua_to_c, runners.plain_callback)
measure("lua.c_to_lua", "callback C -> Lua (a Lua function called from a C action)", "plain Lua function call",
  runners.c_to_lua, runners.plain_callback)
measure("lua.register", "Lua sb.target with every action in one table (per action)",
  "sb.target of one action for as many targets", runners.register, runners.register_targets)
assert(sink ~= 0)
