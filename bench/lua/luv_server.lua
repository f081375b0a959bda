-- A luv TCP server that routes each request through the mediator (issue 40):
-- a Lua action that answers later (a luv timer completes it, so the
-- coroutine handling the request is suspended and resumed by sb.poll()),
-- then a C action; the reply is its answer. Clients in the same loop keep
-- CONNECTIONS requests in flight until REQUESTS are answered. Prints one
-- JSON line: requests per second and latency percentiles. A time, so it is
-- scripts/bench.sh's report, never a budget.
--
--   lua5.4 bench/lua/luv_server.lua PLUGIN [REQUESTS [CONNECTIONS]]
local uv = require "luv"
local sb = require "switchboard"

local plugin = arg[1]
local requests = tonumber(arg[2] or "20000")
local connections = tonumber(arg[3] or "100")
if not plugin or not requests or not connections or requests < connections or connections < 1 then
  io.stderr:write("usage: lua5.4 luv_server.lua PLUGIN [REQUESTS [CONNECTIONS]]\n")
  os.exit(64)
end
assert(sb.load_plugin(plugin))

-- The Lua action: answers on the loop's next turn, as an action waiting
-- for I/O would.
sb.target("Handler", {
  handle = function(params)
    return sb.later(function(complete)
      local timer = uv.new_timer()
      timer:start(0, 0, function()
        timer:close()
        complete({ n = params.n + 1 })
      end)
    end)
  end,
})

local watcher = uv.new_poll(assert(sb.fd()))
watcher:start("r", function()
  local _, errors = sb.poll()
  for _, message in ipairs(errors or {}) do io.stderr:write(message, "\n") end
end)

local server = uv.new_tcp()
assert(server:bind("127.0.0.1", 0))
local port = server:getsockname().port
server:listen(1024, function()
  local client = uv.new_tcp()
  server:accept(client)
  client:read_start(function(err, data)
    if err or not data then client:close() return end
    for line in data:gmatch("(%d+)\n") do
      coroutine.wrap(function()
        local handled = assert(sb.perform("Handler", "handle", { n = tonumber(line) }))
        local doubled = assert(sb.perform("Bench", "twice", { n = handled.n }))
        client:write(tostring(doubled) .. "\n")
      end)()
    end
  end)
end)

local sent, answered, latencies, started = 0, 0, {}, uv.hrtime()
local function finish()
  local seconds = (uv.hrtime() - started) / 1e9
  table.sort(latencies)
  local function pct(p) return latencies[math.max(1, math.ceil(#latencies * p))] / 1e6 end
  print(string.format('{"case": "lua.luv_server", "requests": %d, "connections": %d, "requests_per_s": %.0f, '
    .. '"p50_ms": %.3f, "p99_ms": %.3f, "max_ms": %.3f}', answered, connections, answered / seconds,
    pct(0.5), pct(0.99), latencies[#latencies] / 1e6))
  watcher:close()
  server:close()
  uv.walk(function(handle) if not handle:is_closing() then handle:close() end end)
end

for _ = 1, connections do
  local socket, at, buffered = uv.new_tcp(), 0, ""
  local function ask()
    if sent >= requests then return end
    sent = sent + 1
    at = uv.hrtime()
    socket:write(tostring(sent) .. "\n")
  end
  socket:connect("127.0.0.1", port, function(err)
    assert(not err, err)
    socket:read_start(function(read_err, data)
      assert(not read_err, read_err)
      if not data then return end
      buffered = buffered .. data
      for _ in buffered:gmatch("%d+\n") do
        answered = answered + 1
        latencies[#latencies + 1] = uv.hrtime() - at
        if answered == requests then return finish() end
        ask()
      end
      buffered = buffered:match("[^\n]*$")
    end)
    ask()
  end)
end

uv.run()
