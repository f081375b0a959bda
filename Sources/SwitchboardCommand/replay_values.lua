-- `switchboard replay`, its first part: trace lines read back into Lua
-- values, and values written for comparison with the trace's own writer
-- (ScenarioAPI/trace.lua), so that a record and what a call gives now
-- compare as text. Exports decode, revive, rewritten, list, shown.
-- The command has checked every line with sb_json_decode first: here a line
-- is valid JSON, an object, nested at most SB_MAX_DEPTH deep.
local replay = ...
local json = replay.json
local sb = sb
local null = sb.null
local sub, byte, char, find, match, format, gsub = string.sub, string.byte, string.char, string.find, string.match,
  string.format, string.gsub
local next, type, tonumber, tointeger, math_type, huge = next, type, tonumber, math.tointeger, math.type, math.huge
local concat = table.concat
local rawequal, utf8_char = rawequal, utf8.char

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
    if byte(text, plain_end) == 34 then return concat(parts), plain_end + 1 end
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
    return null, i + 4
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

function replay.decode(text)
  return (decode_at(text, 1))
end

local function from_hex(hex)
  return (gsub(hex, "%x%x", function(h) return char(tonumber(h, 16)) end))
end

local non_finite_numbers = { NaN = 0 / 0, Infinity = huge, ["-Infinity"] = -huge }

-- What the writer puts for values JSON cannot hold (a function, a C
-- callback, a table past 32 levels): a step with one cannot be made again.
local placeholders = { ["<function>"] = true, ["<userdata>"] = true, ["<thread>"] = true, ["<too deep>"] = true }

-- A recorded value as the call had it, in place: the trace writes bytes that
-- are not UTF-8 as {"$bytes": hex} and non-finite numbers as "NaN",
-- "Infinity", "-Infinity" (a string of that text reads as the number too:
-- the trace cannot tell). `special(kind, value, path)` makes what a format-2
-- record writes as {"$fn": n} (a function of the script's) or {"$cancel":
-- bool} (a cancellation token); nil: left as they are. Returns the value
-- and the first placeholder met (nil when none).
local function revive(v, special, path, met)
  if type(v) == "string" then
    local number = non_finite_numbers[v]
    if number then return number, met end
    if placeholders[v] then met = met or v end
    return v, met
  end
  if type(v) ~= "table" then return v, met end
  local only = next(v)
  if only ~= nil and next(v, only) == nil then
    local inner = v[only]
    if only == "$bytes" and type(inner) == "string" and #inner % 2 == 0 and find(inner, "^%x*$") then
      return from_hex(inner), met
    end
    if special and only == "$fn" and math_type(inner) == "integer" then return special("fn", inner, path), met end
    if special and only == "$cancel" and type(inner) == "boolean" then return special("cancel", inner, path), met end
  end
  for k, item in next, v do
    local depth = path and #path or 0
    if path then path[depth + 1] = k end
    v[k], met = revive(item, special, path, met)
    if path then path[depth + 1] = nil end
  end
  return v, met
end
replay.revive = function(v, special) return revive(v, special, special and {} or nil, nil) end

-- A value as the JSON text the trace writer gives it.
function replay.rewritten(value)
  return json(value, 0)
end

-- Values (a table.pack) as a JSON array, as record.lua writes them.
function replay.list(values)
  local parts = {}
  for i = 1, values.n do parts[i] = json(values[i], 0) end
  return "[" .. concat(parts, ",") .. "]"
end

-- A JSON text for the report: long ones cut where a character starts.
local SHOWN_LIMIT = 4096
function replay.shown(text)
  if #text <= SHOWN_LIMIT then return text end
  local cut = SHOWN_LIMIT
  while cut > 1 and (byte(text, cut + 1) or 0) & 0xC0 == 0x80 do cut = cut - 1 end
  return sub(text, 1, cut) .. format(" ... (%d more bytes)", #text - cut)
end

replay.null, replay.is_null = null, function(v) return v == nil or rawequal(v, null) end
