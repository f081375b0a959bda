-- Prints Lua values as one line of JSON-like text, keys sorted, so the
-- demo's output is the same on every run.
local sb = require "switchboard"

local function render(v)
  if v == sb.null then return "null" end
  local t = type(v)
  if t == "string" then return string.format("%q", v) end
  if t ~= "table" then return tostring(v) end
  if #v > 0 or next(v) == nil and getmetatable(v) then
    local items = {}
    for _, item in ipairs(v) do items[#items + 1] = render(item) end
    return "[" .. table.concat(items, ",") .. "]"
  end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys)
  local items = {}
  for _, k in ipairs(keys) do items[#items + 1] = string.format("%q:%s", k, render(v[k])) end
  return "{" .. table.concat(items, ",") .. "}"
end

-- show(result) or show(nil, message, code), as sb.perform returns them;
-- show.render(value) is the text alone.
return setmetatable({ render = render }, {
  __call = function(_, result, message, code)
    if result == nil and message then
      print(string.format("   -> error %s: %s", code, message))
    else
      print("   -> " .. render(result))
    end
  end,
})
