-- Deep equality, and where two values differ. Part of the scenario API:
-- exports difference, differences and path_of.
local api = ...
local next, type, rawequal = next, type, rawequal
local match, sub = string.match, string.sub
local math_type = math.type
local show, key_order = api.show, api.key_order

local function path_of(path, k)
  if type(k) == "string" and match(k, "^[%a_][%w_]*$") then return path .. "." .. k end
  return path .. "[" .. show(k) .. "]"
end

-- nil when equal, else the first difference: path, expected, actual.
-- Integers and floats differ (3 is not 3.0); nan equals nan.
local function difference(expected, actual, path, seen)
  local te, ta = type(expected), type(actual)
  if te ~= ta then return path, expected, actual end
  if te == "number" then
    if math_type(expected) ~= math_type(actual) then return path, expected, actual end
    if expected ~= actual and not (expected ~= expected and actual ~= actual) then return path, expected, actual end
    return nil
  end
  if te ~= "table" then
    if expected ~= actual then return path, expected, actual end
    return nil
  end
  if expected == actual then return nil end
  seen[expected] = seen[expected] or {}
  if seen[expected][actual] then return nil end
  seen[expected][actual] = true
  -- The first difference in key order, found without sorting the keys (a
  -- table of a million keys sorted by a Lua comparison took seconds): only
  -- a key that would come before the one found so far is compared.
  local first, p, e, a
  for k, v in next, expected do
    local other = actual[k]
    local same = rawequal(v, other) and math_type(v) == math_type(other) -- (3 and 3.0 are rawequal)
    if not same and (first == nil or key_order(k, first)) then
      local kp, ke, ka = difference(v, other, path_of(path, k), seen)
      if kp then first, p, e, a = k, kp, ke, ka end
    end
  end
  if first ~= nil then return p, e, a end
  for k in next, actual do
    if expected[k] == nil and (first == nil or key_order(k, first)) then first = k end
  end
  if first ~= nil then return path_of(path, first), nil, actual[first] end
  return nil
end

-- Every key at which two tables differ, to show them one per line: the
-- first `limit` in key order (each {keys = {...}, expected, actual}; a side
-- is nil where the key is absent), and how many were found. Tables are
-- walked to the first difference of a pair, as `difference` does, down to
-- `DEPTH` levels (deeper, a differing pair is one difference), and no more
-- than `VISITS` entries in all: past that, `more` is true (there may be
-- more than the count).
local DEPTH, VISITS = 32, 200000

local function differences(expected, actual, limit)
  local kept, total, visits, more = {}, 0, 0, false
  local prefix = {} -- the keys down to the table being walked
  local seen = {}
  -- Whether prefix..k comes before the path `q` in key order.
  local function before(k, q)
    local n = #prefix + 1
    for i = 1, n do
      local key = i < n and prefix[i] or k
      local other = q[i]
      if other == nil then return false end
      if not rawequal(key, other) then return key_order(key, other) end
    end
    return n < #q
  end
  local function add(k, e, a)
    total = total + 1
    if #kept == limit and not before(k, kept[limit].keys) then return end
    local keys = {}
    for i = 1, #prefix do keys[i] = prefix[i] end
    keys[#keys + 1] = k
    local i = #kept < limit and #kept + 1 or limit
    while i > 1 and before(k, kept[i - 1].keys) do
      kept[i] = kept[i - 1]
      i = i - 1
    end
    kept[i] = { keys = keys, expected = e, actual = a }
  end
  local function walk(e, a)
    seen[e] = seen[e] or {}
    if seen[e][a] then return end
    seen[e][a] = true
    for k, ve in next, e do
      visits = visits + 1
      if visits > VISITS then more = true; return end
      local va = a[k]
      if not (rawequal(ve, va) and math_type(ve) == math_type(va)) then
        if type(ve) == "table" and type(va) == "table" and #prefix < DEPTH then
          prefix[#prefix + 1] = k
          walk(ve, va)
          prefix[#prefix] = nil
          if more then return end
        elseif difference(ve, va, "", {}) then
          add(k, ve, va)
        end
      end
    end
    for k, va in next, a do
      visits = visits + 1
      if visits > VISITS then more = true; return end
      if e[k] == nil then add(k, nil, va) end
    end
  end
  walk(expected, actual)
  return kept, total, more
end

-- A path of keys as a reader writes it: user.langs[2].
local function path_text(keys)
  local path = ""
  for i = 1, #keys do path = path_of(path, keys[i]) end
  return sub(path, 1, 1) == "." and sub(path, 2) or path
end

api.difference, api.differences, api.path_of, api.path_text = difference, differences, path_of, path_text
