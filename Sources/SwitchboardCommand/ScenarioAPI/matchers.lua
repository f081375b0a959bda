-- expect(...) and its matchers (a global: expect). Part of the scenario
-- API: exports pack.
local api = ...
local ipairs, select, type, tostring, pairs, pcall, error, setmetatable, rawequal = ipairs, select, type, tostring,
  pairs, pcall, error, setmetatable, rawequal
local format, find, sub = string.format, string.find, string.sub
local concat, unpack = table.concat, table.unpack
local math_type, abs = math.type, math.abs
local show, difference, fail, is_failure = api.show, api.difference, api.fail, api.is_failure

local function pack(...) return { n = select("#", ...), ... } end

local function is_failure_result(values)
  return values[1] == nil and values.n >= 2
end

local matchers = {}

-- Two tables that differ: the keys that differ first, one per line, as a
-- diff (- expected, + got), then both tables; anything else on one line.
local DIFFERENCES_SHOWN = 10

function matchers.to_equal(v, expected)
  local path = difference(expected, v.value, "", {})
  if not path then return end
  if type(expected) ~= "table" or type(v.value) ~= "table" then
    fail(format("expected %s, got %s", show(expected), show(v.value)))
  end
  local kept, total, more = api.differences(expected, v.value, DIFFERENCES_SHOWN)
  if total == 0 then fail(format("expected %s, got %s", show(expected), show(v.value))) end
  local lines = { format("the tables differ at %d%s key%s (- expected, + got):", total, more and " or more" or "",
                         total == 1 and "" or "s") }
  for _, d in ipairs(kept) do
    local at = api.path_text(d.keys)
    if d.expected ~= nil then lines[#lines + 1] = format("- %s = %s", at, show(d.expected)) end
    if d.actual ~= nil then lines[#lines + 1] = format("+ %s = %s", at, show(d.actual)) end
  end
  if total > #kept then lines[#lines + 1] = format("... and %s%d more", more and "at least " or "", total - #kept) end
  lines[#lines + 1] = "expected " .. show(expected)
  lines[#lines + 1] = "     got " .. show(v.value)
  fail(concat(lines, "\n"))
end

function matchers.to_not_equal(v, unexpected)
  if difference(unexpected, v.value, "", {}) == nil then fail(format("expected anything but %s", show(unexpected))) end
end

function matchers.to_be(v, expected)
  if not rawequal(v.value, expected) or math_type(v.value) ~= math_type(expected) then
    fail(format("expected %s (the same value), got %s", show(expected), show(v.value)))
  end
end

function matchers.to_be_nil(v)
  if v.value ~= nil then fail(format("expected nil, got %s", show(v.value))) end
end

function matchers.to_exist(v)
  if v.value == nil then fail("expected a value, got nil") end
end

function matchers.to_be_true(v)
  if v.value ~= true then fail(format("expected true, got %s", show(v.value))) end
end

function matchers.to_be_false(v)
  if v.value ~= false then fail(format("expected false, got %s", show(v.value))) end
end

function matchers.to_be_truthy(v)
  if not v.value then fail(format("expected a truthy value, got %s", show(v.value))) end
end

function matchers.to_be_falsy(v)
  if v.value then fail(format("expected nil or false, got %s", show(v.value))) end
end

-- "an integer", "a table" (no Lua type name starts with a "u" said "yoo" but userdata).
local function article(word)
  return (find(tostring(word), "^[aeioAEIO]") and "an " or "a ") .. tostring(word)
end

function matchers.to_be_a(v, kind)
  local actual = math_type(v.value) or type(v.value)
  if actual ~= kind and type(v.value) ~= kind then fail(format("expected %s, got %s (%s)", article(kind), show(v.value), article(actual))) end
end

function matchers.to_contain(v, item)
  local value = v.value
  if type(value) == "string" then
    if type(item) ~= "string" or not find(value, item, 1, true) then fail(format("expected %s to contain %s", show(value), show(item))) end
    return
  end
  if type(value) ~= "table" then fail(format("expected a table or string to look in, got %s", show(value))) end
  for _, element in pairs(value) do
    if difference(item, element, "", {}) == nil then return end
  end
  fail(format("expected %s to contain %s", show(value), show(item)))
end

function matchers.to_match(v, pattern)
  if type(v.value) ~= "string" or not find(v.value, pattern) then
    fail(format("expected %s to match the pattern %s", show(v.value), show(pattern)))
  end
end

function matchers.to_be_close_to(v, expected, tolerance)
  tolerance = tolerance or 1e-9
  local x = v.value
  -- In floats, so that integers cannot wrap; NaN is close to nothing.
  if type(x) ~= "number" or type(expected) ~= "number" or not (abs((x + 0.0) - (expected + 0.0)) <= tolerance) then
    fail(format("expected %s within %s of %s", show(x), show(tolerance), show(expected)))
  end
end

function matchers.to_be_greater_than(v, bound)
  if type(v.value) ~= "number" or not (v.value > bound) then fail(format("expected more than %s, got %s", show(bound), show(v.value))) end
end

function matchers.to_be_less_than(v, bound)
  if type(v.value) ~= "number" or not (v.value < bound) then fail(format("expected less than %s, got %s", show(bound), show(v.value))) end
end

-- A call that returned a value: not the `nil, message, code` of a failure.
function matchers.to_succeed(v)
  if is_failure_result(v.values) then
    fail(format("expected success, the call failed: %s (%s)", tostring(v.values[2]), tostring(v.values[3])))
  end
end

-- `nil, message, code` with this code (any code when none is given); for a
-- function, what it returns or raises when called.
function matchers.to_fail_with(v, code)
  local values = v.values
  if type(v.value) == "function" and values.n == 1 then
    values = pack(pcall(v.value))
    if values[1] == false then
      if code == nil or find(tostring(values[2]), code, 1, true) then return end
      fail(format("expected a failure with %s, it raised: %s", code, tostring(values[2])))
    end
    values = pack(unpack(values, 2, values.n))
  end
  if not is_failure_result(values) then
    fail(format("expected a failure%s, got %s", code and (" with " .. code) or "", show(values[1])))
  end
  if code ~= nil and values[3] ~= code then
    fail(format("expected a failure with %s, got %s: %s", code, tostring(values[3]), tostring(values[2])))
  end
end

-- The function raises an error whose message contains `pattern` (a Lua pattern).
function matchers.to_raise(v, pattern)
  if type(v.value) ~= "function" then fail(format("expected a function to call, got %s", show(v.value))) end
  local ok, err = pcall(v.value)
  if ok then fail("expected an error, the function returned") end
  if is_failure(err) then err = err.message end
  if pattern ~= nil and not find(tostring(err), pattern) then
    fail(format("expected an error matching %s, got: %s", show(pattern), tostring(err)))
  end
end

-- The matchers that speak of a failed call themselves; every other one that
-- fails on the `nil, message, code` of a call adds why the call failed.
local about_failures = { to_succeed = true, to_fail_with = true, to_be_nil = true, to_be_falsy = true }

local function with_reason(name, state, ok, err)
  if ok or about_failures[name] or not is_failure(err) or not is_failure_result(state.values) then
    if not ok then error(err, 0) end
    return
  end
  local values = state.values
  if state.last_call then
    err.message = format("%s (the last call, %s, failed: %s %s)", err.message, tostring(state.last_call),
                         tostring(values[2]), tostring(values[3] or ""))
  else
    err.message = format("%s (the call failed: %s %s)", err.message, tostring(values[2]), tostring(values[3] or ""))
  end
  error(err, 0)
end

-- expect(actual) keeps every value it is given, so expect(sb.perform(...))
-- sees a failure's message and code too. A nil given alone, when the last
-- call the scenario made failed, stands for that call's `nil, message,
-- code` (`local r = sb.perform(...); expect(r)` as the inline form): what
-- the call said is kept until the next call. Both expect(x).to_equal(y)
-- and expect(x):to_equal(y) work.
function expect(...)
  local state = { values = pack(...) }
  if state.values.n == 1 and state.values[1] == nil then
    local last = api.last_failure()
    if last then
      state.values = pack(nil, last.message, last.code)
      state.last_call = last.call
    end
  end
  state.value = state.values[1]
  local expectation = {}
  return setmetatable(expectation, {
    __metatable = "expectation",
    __index = function(_, name)
      local matcher = matchers[name]
      if not matcher then error(format("expect(...) has no matcher %s", tostring(name)), 2) end
      return function(first, ...)
        local running = api.state.running
        if running then running.expectations = running.expectations + 1 end
        if rawequal(first, expectation) then return with_reason(name, state, pcall(matcher, state, ...)) end
        return with_reason(name, state, pcall(matcher, state, first, ...))
      end
    end,
  })
end

api.pack = pack
