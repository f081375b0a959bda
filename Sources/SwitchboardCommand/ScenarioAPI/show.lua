-- Values as Lua source, for messages. Part of the scenario API (see
-- ScenarioAPI.swift for how the parts are put together): exports show,
-- key_order and sorted_keys.
local api = ...
local sb = sb
local next, ipairs, type, tostring, tonumber, rawequal = next, ipairs, type, tostring, tonumber, rawequal
local format, gsub, sub, find, match, byte = string.format, string.gsub, string.sub, string.find, string.match, string.byte
local concat, sort = table.concat, table.sort
local math_type, huge = math.type, math.huge

-- A value as Lua source, for messages: 3 and 3.0 differ, keys are sorted,
-- deep or long tables are cut short.
local show
local function show_key(k)
  if type(k) == "string" and match(k, "^[%a_][%w_]*$") then return k end
  return "[" .. show(k, 1, {}) .. "]"
end

local function key_order(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then return ta < tb end
  if ta == "number" or ta == "string" then return a < b end
  return tostring(a) < tostring(b)
end

local function sorted_keys(t)
  local keys = {}
  for k in next, t do keys[#keys + 1] = k end
  sort(keys, key_order)
  return keys
end

-- Deep or long tables are cut short: 40 entries a table, 6 levels, and 400
-- entries in all (a table shared by many others is shown each time it is
-- met); a table's keys are sorted only when it has few.
local SHOWN_IN_ALL, KEYS_SORTED = 400, 1000

function show(v, depth, seen)
  depth, seen = depth or 0, seen or {}
  seen.budget = seen.budget or SHOWN_IN_ALL
  local t = type(v)
  if t == "string" then
    -- Bytes that are not UTF-8 stay as they are here: the report shows
    -- them as \xHH (sbr_copy_text), so "\xff" and "\xfe" differ.
    if #v > 200 then
      local cut = 200 -- not inside a UTF-8 sequence
      while cut > 196 and (byte(v, cut + 1) or 0) & 0xC0 == 0x80 do cut = cut - 1 end
      return gsub(format("%q", sub(v, 1, cut)), "\\\n", "\\n") .. "..."
    end
    return (gsub(format("%q", v), "\\\n", "\\n"))
  elseif t == "number" then
    if math_type(v) == "integer" then return tostring(v) end
    if v ~= v then return "nan" elseif v == huge then return "inf" elseif v == -huge then return "-inf" end
    local text = format("%.17g", v)
    if tonumber(format("%.15g", v)) == v then text = format("%.15g", v) end
    if not find(text, "[%.eEn]") then text = text .. ".0" end
    return text
  elseif rawequal(v, sb.null) then
    return "sb.null"
  elseif t ~= "table" then
    return tostring(v)
  end
  if seen[v] then return "<cycle>" end
  if depth >= 6 or seen.budget <= 0 then return "{...}" end
  seen[v] = true
  local parts, n = {}, #v
  local function full() return #parts >= 40 or seen.budget <= 0 end
  for i = 1, n do
    if full() then break end
    seen.budget = seen.budget - 1
    parts[#parts + 1] = show(v[i], depth + 1, seen)
  end
  if not full() then
    local keys = {}
    for k in next, v do
      if not (math_type(k) == "integer" and k >= 1 and k <= n) then
        keys[#keys + 1] = k
        if #keys >= KEYS_SORTED then break end
      end
    end
    sort(keys, key_order)
    for _, k in ipairs(keys) do
      if full() then break end
      seen.budget = seen.budget - 1
      parts[#parts + 1] = show_key(k) .. " = " .. show(v[k], depth + 1, seen)
    end
  end
  if full() then parts[#parts + 1] = "..." end
  seen[v] = nil
  return "{" .. concat(parts, ", ") .. "}"
end

api.show, api.key_order, api.sorted_keys = show, key_order, sorted_keys
