-- A luv (libuv for Lua) script: the state's answers come through sb.fd(),
-- which the loop watches like any descriptor, and sb.poll() delivers them
-- between the loop's other events: coroutines suspended in sb.perform are
-- resumed, sb.perform_async's callbacks run. The watcher closes when no
-- call is left, so uv.run() ends; errors raised after a suspension are
-- sb.poll()'s second result, reported here.
--
--   lua5.4 luv.lua        (from a folder holding module_a.so)
local uv = require "luv"
local sb = require "switchboard"
assert(sb.load_plugin("./module_a.so"))

local ticks = 0
local timer = uv.new_timer()
timer:start(5, 5, function() ticks = ticks + 1 end) -- the loop runs meanwhile

local watcher = uv.new_poll(assert(sb.fd()))
watcher:start("r", function()
  local _, errors = sb.poll()
  for _, message in ipairs(errors or {}) do io.stderr:write(message, "\n") end
  if sb.pending() == 0 then -- uv.run() ends with the last call
    watcher:close()
    timer:close()
  end
end)

local order = {}
for _, ms in ipairs({ 60, 10, 30 }) do
  coroutine.wrap(function()
    local file = sb.perform("Net", "download", { url = "file" .. ms, ms = ms })
    order[#order + 1] = file.url -- after the call ended, resumed by sb.poll()
  end)()
end
sb.perform_async("Net", "download", { url = "by callback", ms = 20 }, function(file, message)
  order[#order + 1] = file and file.url or message
end)

uv.run()
print(table.concat(order, ", "))                   --> file10, by callback, file30, file60
print(ticks > 0 and "the loop ran while the calls were out") --> the loop ran while the calls were out
