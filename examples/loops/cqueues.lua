-- A cqueues script: cqueues owns its coroutines (their yields are its
-- own), so calls that answer later use sb.perform_async, whose callback
-- signals a cqueues condition; while answers are due, one cqueues
-- coroutine waits on sb.fd() and runs sb.poll(). sb.perform in a cqueues
-- coroutine never yields: an answer that is ready at once comes back as
-- always.
--
--   lua5.4 cqueues.lua    (from a folder holding module_a.so)
local cqueues = require "cqueues"
local condition = require "cqueues.condition"
local sb = require "switchboard"
assert(sb.load_plugin("./module_a.so"))

local loop = cqueues.new()
local answers = { pollfd = assert(sb.fd()), events = "r" } -- what cqueues.poll waits on
local delivering = false
local function deliver() -- runs sb.poll() while answers are due
  delivering = true
  while sb.pending() > 0 do
    cqueues.poll(answers)
    local _, errors = sb.poll()
    for _, message in ipairs(errors or {}) do io.stderr:write(message, "\n") end
  end
  delivering = false
end

-- A call a cqueues coroutine waits for, without blocking the loop.
local function call(target, action, params)
  local answered, results = condition.new(), nil
  sb.perform_async(target, action, params, function(...)
    results = table.pack(...)
    answered:signal()
  end)
  if not delivering then loop:wrap(deliver) end
  answered:wait()
  return table.unpack(results, 1, results.n)
end

local order = {}
for _, ms in ipairs({ 60, 10, 30 }) do
  loop:wrap(function()
    local file = assert(call("Net", "download", { url = "file" .. ms, ms = ms }))
    order[#order + 1] = file.url
  end)
end
loop:wrap(function()
  sb.target("Clock", { now = function() return "at once" end })
  order[#order + 1] = sb.perform("Clock", "now") -- no yield to the controller
end)
assert(loop:loop())
table.sort(order) -- (the downloads end in the order of their delays, unless the machine is busy)
print(table.concat(order, ", "))                   --> at once, file10, file30, file60
