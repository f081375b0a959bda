-- Deep equality, and where two values differ. Part of the scenario API:
-- exports difference.
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

api.difference, api.path_of = difference, path_of
