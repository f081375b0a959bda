-- --trace: one JSON object per call, from the mediator's observer hook
-- (record.lua adds what the script itself does, for `switchboard replay`).
-- Part of the scenario API: exports json, json_string, trace_head and
-- announce_script_call.
local api, helpers = ...
local sb = sb
local next, ipairs, type, tostring, rawequal = next, ipairs, type, tostring, rawequal
local format, gsub, find, byte = string.format, string.gsub, string.find, string.byte
local concat, remove = table.concat, table.remove
local math_type, huge, floor = math.type, math.huge, math.floor
local getinfo = debug.getinfo
local running = coroutine.running
local utf8_len = utf8.len
local sorted_keys, answered_by = api.sorted_keys, api.answered_by
local state = api.state
local script = helpers.script

local json_string
do
  local escapes = { ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f",
                    ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }
  -- C0, DEL and C1 (UTF-8 \194\128..\194\159) escaped: the trace is text a terminal may show.
  function json_string(s)
    s = gsub(s, '[%c"\\]', function(c) return escapes[c] or format("\\u%04x", byte(c)) end)
    return '"' .. gsub(s, "\194([\128-\159])", function(c) return format("\\u%04x", byte(c)) end) .. '"'
  end
end

-- Values as JSON, the way sb_json_encode writes them: bytes that are not UTF-8
-- as {"$bytes": hex}, non-finite numbers as strings, functions by kind, or
-- as `refs` writes them when it is given and knows them (record.lua).
local function json(v, depth, refs)
  local t = type(v)
  if t == "nil" or rawequal(v, sb.null) then return "null" end
  if t == "boolean" then return tostring(v) end
  if t == "number" then
    if math_type(v) == "integer" then return tostring(v) end
    if v ~= v then return '"NaN"' elseif v == huge then return '"Infinity"' elseif v == -huge then return '"-Infinity"' end
    local text = format("%.17g", v)
    if not find(text, "[%.eE]") then text = text .. ".0" end
    return text
  end
  if t == "string" then
    if utf8_len(v) then return json_string(v) end
    return '{"$bytes":"' .. gsub(v, ".", function(c) return format("%02x", byte(c)) end) .. '"}'
  end
  if t ~= "table" then return refs and refs(v) or json_string("<" .. t .. ">") end
  if depth > 32 then return '"<too deep>"' end
  local n, count = #v, 0
  for _ in next, v do count = count + 1 end
  local parts = {}
  if n > 0 and n == count then
    for i = 1, n do parts[i] = json(v[i], depth + 1, refs) end
    return "[" .. concat(parts, ",") .. "]"
  end
  for _, k in ipairs(sorted_keys(v)) do
    parts[#parts + 1] = json_string(tostring(k)) .. ":" .. json(v[k], depth + 1, refs)
  end
  return "{" .. concat(parts, ",") .. "}"
end

-- What every line starts with: the format (2: since traces record what the
-- script does, record.lua), when, and whose.
local function trace_head()
  local running_scenario = state.running
  return '"trace":2,"time":' .. json_string(helpers.wallclock()) .. ',"script":' .. json(script, 0)
    .. ',"scenario":' .. json(running_scenario and running_scenario.name, 0)
end

-- How deep each call is: 1 for a call the scenario made itself (record.lua
-- announces it just before it makes it: the next start event is its own),
-- and 2 and more for one made while answering another: one more than the
-- calls in progress on its coroutine. A call that suspends its coroutine
-- ends later, heard inside sb.poll: it ends with the depth it started with
-- (that of the oldest call in progress to the same target and action, or
-- URL). A call made on another thread is heard in sb.poll whole: never 1.
local announced = false
local open_calls, calls_owner = {}, nil -- {co =, key =, depth =}, oldest first
local poll = sb.poll
local function heard_in_poll()
  local level = 3
  while true do
    local info = getinfo(level, "f")
    if not info then return false end
    if rawequal(info.func, poll) then return true end
    level = level + 1
  end
end

local function call_key(event)
  return event.url or ((event.target or "") .. "\0" .. (event.action or ""))
end

-- An open call's entry, taken out: the newest of this coroutine's to the
-- same place; or the oldest to it of any coroutine (a call that suspended,
-- ended from wherever its answer came); or the newest of this coroutine's
-- (an interceptor or a rule sent it elsewhere).
local function take(co, key)
  local found
  for i = #open_calls, 1, -1 do
    local entry = open_calls[i]
    if rawequal(entry.co, co) and entry.key == key then found = i break end
  end
  if not found then
    for i = 1, #open_calls do
      if open_calls[i].key == key then found = i break end
    end
  end
  if not found then
    for i = #open_calls, 1, -1 do
      if rawequal(open_calls[i].co, co) then found = i break end
    end
  end
  return found and remove(open_calls, found).depth or 2
end

-- The depth of the call `event` ends; nil when it starts.
local function depth_of(event)
  local co, key = running(), call_key(event)
  if heard_in_poll() then -- another thread's call, or the answer of one that suspended
    if event.phase == "start" then open_calls[#open_calls + 1] = { key = key, depth = 2 } return nil end
    return take(nil, key)
  end
  if event.phase == "end" then return take(co, key) end
  local inside = 0
  for i = 1, #open_calls do
    if rawequal(open_calls[i].co, co) then inside = inside + 1 end
  end
  open_calls[#open_calls + 1] = { co = co, key = key, depth = announced and 1 or (inside + 1 > 2 and inside + 1 or 2) }
  announced = false
  return nil
end

-- One record per call, written as it ends, from the mediator's observer
-- hook: calls made by the script, by Lua targets and by C code alike. A call
-- that raises before it is made (a misuse, such as a wrong argument type)
-- leaves no record.
if helpers.trace then
  sb.observe(function(event)
    local scenario_now = state.running
    if not rawequal(scenario_now, calls_owner) then open_calls, calls_owner = {}, scenario_now end
    local level = depth_of(event)
    if not level then return end
    local line = { trace_head(), format('"depth":%d', level) }
    if event.url then
      line[#line + 1] = '"call":"open"'
      line[#line + 1] = '"url":' .. json(event.url, 0)
    else
      line[#line + 1] = '"call":"perform"'
    end
    -- (A URL's: where it went, when it resolved.)
    if not event.url or (event.target and event.action) then
      line[#line + 1] = '"target":' .. json(event.target, 0)
      line[#line + 1] = '"action":' .. json(event.action, 0)
    end
    line[#line + 1] = '"params":' .. json(event.params, 0)
    if event.code then
      line[#line + 1] = '"error":' .. json(event.message, 0)
      line[#line + 1] = '"code":' .. json(event.code, 0)
    else
      line[#line + 1] = '"result":' .. json(event.result, 0)
      local by = event.target and event.action and answered_by(event.target, event.action)
      if by then line[#line + 1] = '"answered_by":' .. json_string(by) end
    end
    line[#line + 1] = format('"duration_us":%d', floor(event.duration * 1e6 + 0.5))
    helpers.trace("{" .. concat(line, ",") .. "}")
  end)
end

api.trace_head = trace_head
-- record.lua: true just before a call the scenario makes itself, false after.
function api.announce_script_call(on) announced = on end
api.json, api.json_string = json, json_string
