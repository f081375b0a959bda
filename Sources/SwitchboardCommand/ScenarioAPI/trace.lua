-- --trace: one JSON object per call, from the mediator's observer hook.
-- Part of the scenario API: exports json and json_string.
local api, helpers = ...
local sb = sb
local next, ipairs, type, tostring, rawequal = next, ipairs, type, tostring, rawequal
local format, gsub, find, byte = string.format, string.gsub, string.find, string.byte
local concat = table.concat
local math_type, huge, floor = math.type, math.huge, math.floor
local getinfo = debug.getinfo
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
-- as {"$bytes": hex}, non-finite numbers as strings, functions by kind.
local function json(v, depth)
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
  if t ~= "table" then return json_string("<" .. t .. ">") end
  if depth > 32 then return '"<too deep>"' end
  local n, count = #v, 0
  for _ in next, v do count = count + 1 end
  local parts = {}
  if n > 0 and n == count then
    for i = 1, n do parts[i] = json(v[i], depth + 1) end
    return "[" .. concat(parts, ",") .. "]"
  end
  for _, k in ipairs(sorted_keys(v)) do
    parts[#parts + 1] = json_string(tostring(k)) .. ":" .. json(v[k], depth + 1)
  end
  return "{" .. concat(parts, ",") .. "}"
end

-- `switchboard replay` writes what a call gives now with this same writer,
-- so a record and a replayed result compare as text (replay.lua).
if helpers.keep_json then helpers.keep_json(json) end

-- How deep each call is: 1 for a call the script made itself, 2 and more
-- for calls made while answering one. Start and end events come nested on
-- the calling thread; a call made on another thread is queued and heard
-- inside sb.poll: the script did not make it, so it is never 1.
local depth, depth_owner = 0, nil
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

-- One record per call, written as it ends, from the mediator's observer
-- hook: calls made by the script, by Lua targets and by C code alike. A call
-- that raises before it is made (a misuse, such as a wrong argument type)
-- leaves no record.
if helpers.trace then
  sb.observe(function(event)
    local running = state.running
    if not rawequal(running, depth_owner) then depth, depth_owner = 0, running end
    local level
    if heard_in_poll() then
      if event.phase ~= "end" then return end
      level = depth + 1 > 2 and depth + 1 or 2
    elseif event.phase == "start" then
      depth = depth + 1
      return
    else
      level = depth > 1 and depth or 1
      depth = depth > 0 and depth - 1 or 0
    end
    local line = { '"time":' .. json_string(helpers.wallclock()),
                   '"script":' .. json(script, 0),
                   '"scenario":' .. json(running and running.name, 0),
                   format('"depth":%d', level) }
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

api.json, api.json_string = json, json_string
