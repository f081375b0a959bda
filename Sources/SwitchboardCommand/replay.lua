-- `switchboard replay`: re-issues one recorded call (a --trace line) in the
-- session's state and compares what it gives now with the record. Called
-- with the trace's own JSON writer (ScenarioAPI/trace.lua), so both sides are
-- written the same way; returns the function each line is handed to.
-- The command has checked every line with sb_json_decode first: here a line
-- is valid JSON, an object, nested at most SB_MAX_DEPTH deep.
local json = ...
local sb = sb
-- Taken now: a target replayed later could replace sb.perform in the table
-- every target shares, and the harness would believe its answers.
local perform, open, null = sb.perform, sb.open, sb.null
local sub, byte, char, find, match, format, gsub = string.sub, string.byte, string.char, string.find, string.match,
  string.format, string.gsub
local next, pcall, tostring, tonumber, tointeger, rawequal, type, huge = next, pcall, tostring, tonumber, math.tointeger, rawequal, type, math.huge
local utf8_char, lower = utf8.char, string.lower

---------------------------------------------------------------- reading JSON

local escapes = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }

local decode_at -- (text, position) -> value, next position

local function skip(text, i)
  return find(text, "[^ \t\r\n]", i) or #text + 1
end

local function read_string(text, i)
  local parts, n = {}, 0
  i = i + 1
  while true do
    local plain_end = find(text, '["\\]', i)
    n = n + 1
    parts[n] = sub(text, i, plain_end - 1)
    if byte(text, plain_end) == 34 then return table.concat(parts), plain_end + 1 end
    local e = sub(text, plain_end + 1, plain_end + 1)
    if e == "u" then
      local code = tonumber(sub(text, plain_end + 2, plain_end + 5), 16)
      i = plain_end + 6
      if code >= 0xD800 and code <= 0xDBFF and sub(text, i, i + 1) == "\\u" then
        local low = tonumber(sub(text, i + 2, i + 5), 16)
        if low >= 0xDC00 and low <= 0xDFFF then
          code = 0x10000 + (code - 0xD800) * 0x400 + (low - 0xDC00)
          i = i + 6
        end
      end
      n = n + 1
      parts[n] = utf8_char(code)
    else
      n = n + 1
      parts[n] = escapes[e]
      i = plain_end + 2
    end
  end
end

local function from_hex(hex)
  return (gsub(hex, "%x%x", function(h) return char(tonumber(h, 16)) end))
end

local non_finite_numbers = { NaN = 0 / 0, Infinity = huge, ["-Infinity"] = -huge }

-- Params as the call had them: the trace writes bytes that are not UTF-8 as
-- {"$bytes": hex} and non-finite numbers as "NaN", "Infinity", "-Infinity"
-- (a string of that text reads as the number too: the trace cannot tell).
-- What the writer puts for values JSON cannot hold (a function, a C
-- callback, a table past 32 levels): a call with one cannot be made again.
local placeholders = { ["<function>"] = true, ["<userdata>"] = true, ["<thread>"] = true, ["<too deep>"] = true }
local unreplayable -- the first placeholder met, while reading params

local function as_params(v)
  if type(v) == "string" then
    local number = non_finite_numbers[v]
    if number then return number end
    if placeholders[v] then unreplayable = unreplayable or v end
    return v
  end
  if type(v) ~= "table" then return v end
  local hex = v["$bytes"]
  if type(hex) == "string" and next(v, next(v)) == nil and #hex % 2 == 0 and find(hex, "^%x*$") then
    return from_hex(hex)
  end
  for k, item in next, v do v[k] = as_params(item) end
  return v
end

function decode_at(text, i)
  i = skip(text, i)
  local c = sub(text, i, i)
  if c == "{" then
    local t = {}
    i = skip(text, i + 1)
    if sub(text, i, i) == "}" then return t, i + 1 end
    while true do
      local key
      key, i = read_string(text, skip(text, i))
      i = skip(text, i) + 1 -- the colon
      local value
      value, i = decode_at(text, i)
      t[key] = value
      i = skip(text, i)
      if sub(text, i, i) == "}" then break end
      i = i + 1 -- the comma
    end
    return t, i + 1
  elseif c == "[" then
    local t, n = {}, 0
    i = skip(text, i + 1)
    if sub(text, i, i) == "]" then return sb.array(t), i + 1 end
    while true do
      local value
      value, i = decode_at(text, i)
      n = n + 1
      t[n] = value
      i = skip(text, i)
      if sub(text, i, i) == "]" then break end
      i = i + 1
    end
    return sb.array(t), i + 1
  elseif c == '"' then
    local s
    s, i = read_string(text, i)
    return s, i
  elseif c == "t" then
    return true, i + 4
  elseif c == "f" then
    return false, i + 5
  elseif c == "n" then
    return sb.null, i + 4
  elseif c == "N" then
    return 0 / 0, i + 3
  elseif c == "I" then
    return huge, i + 8
  elseif sub(text, i, i + 8) == "-Infinity" then
    return -huge, i + 9
  end
  local number = match(text, "^-?%d+%.?%d*[eE]?[-+]?%d*", i)
  local value = tonumber(number)
  if not find(number, "[.eE]") then value = tointeger(value) or value end
  return value, i + #number
end

local function decode(text)
  return (decode_at(text, 1))
end

---------------------------------------------------------------- one call

-- A value as the JSON text the trace writer gives it.
local function rewritten(value)
  return json(value, 0)
end

-- A JSON text for the report: long ones cut where a character starts.
local SHOWN_LIMIT = 4096
local function shown(text)
  if #text <= SHOWN_LIMIT then return text end
  local cut = SHOWN_LIMIT
  while cut > 1 and (byte(text, cut + 1) or 0) & 0xC0 == 0x80 do cut = cut - 1 end
  return sub(text, 1, cut) .. format(" ... (%d more bytes)", #text - cut)
end

-- Whether an ENOTARGET message names the record's own target (a perform's
-- target; a URL's host, in any case), not one the target called.
local function names_own_target(record, message)
  if type(message) ~= "string" then return false end
  local named = match(message, '^no target named "(.-)"')
  if named == nil then return false end
  if record.call == "open" then
    local host = match(record.url or "", "^%a[%w+.-]*://([^/?#]*)")
    return host ~= nil and lower(host) == lower(named)
  end
  return named == record.target
end

-- Answers "same", "differs\t<recorded>\t<now>" or "skipped\t<reason>";
-- recorded and now are JSON texts (the trace writer's: no raw tab).
return function(line)
  local record = decode(line)
  local params = record.params
  unreplayable = nil
  if rawequal(params, null) then params = nil else params = as_params(params) end
  if unreplayable then
    return "skipped\tits params held " .. unreplayable .. " (a function, C value or table deeper than 32 levels"
      .. " is recorded by kind only): it cannot be made again from the trace"
  end
  -- A misuse raises (a target name no call could have had): a trace never
  -- records one, so a forged line that names one differs.
  local ok, result, message, code
  if record.call == "open" then
    ok, result, message, code = pcall(open, record.url, params)
  else
    ok, result, message, code = pcall(perform, record.target, record.action, params)
  end
  if not ok then result, message, code = nil, tostring(result), nil end
  local recorded_code = record.code
  if recorded_code ~= nil then recorded_code = rewritten(recorded_code) end
  -- A target the scenario registered from Lua (sb.target) is not in the
  -- plugins or the --targets directories: without the script it cannot be
  -- called again, which says nothing about the build. Only the call's own
  -- target: a target it calls that is gone now is a difference.
  if code == "ENOTARGET" and recorded_code ~= '"ENOTARGET"' and names_own_target(record, message) then
    return "skipped\tits target is not loaded now (ENOTARGET: " .. gsub(message or "", "[%c]", " ")
      .. "); a target the scenario registered from Lua cannot be replayed without its script"
  end
  local recorded, now
  if recorded_code ~= nil then
    recorded = '{"code":' .. recorded_code .. "}"
  else
    recorded = '{"result":' .. rewritten(record.result) .. "}"
  end
  if not ok then
    now = '{"raised":' .. rewritten(message) .. "}"
  elseif code ~= nil then
    now = '{"code":' .. rewritten(code) .. "}"
  else
    now = '{"result":' .. rewritten(result) .. "}"
  end
  if recorded == now then return "same" end
  return "differs\t" .. shown(recorded) .. "\t" .. shown(now)
end
