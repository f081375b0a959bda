-- The scenario API of `switchboard run`: scenario, step, expect and the
-- matchers, loaded into every scenario's Lua state before the script.
-- Called with the runner's helpers (now, wallclock, trace, script); returns
-- the control table the runner drives (see Sources/SwitchboardRunner/runner.c).
local helpers = ...
-- Everything the API uses is captured now: a script that replaces a global
-- or a string method cannot break the report.
local sb = sb
local now, script = helpers.now, helpers.script
local next, ipairs, pairs, type, tostring, tonumber, select = next, ipairs, pairs, type, tostring, tonumber, select
local error, pcall, xpcall, setmetatable, getmetatable, rawequal = error, pcall, xpcall, setmetatable, getmetatable, rawequal
local format, gsub, gmatch, sub, find, match, byte = string.format, string.gsub, string.gmatch, string.sub, string.find, string.match, string.byte
local concat, sort, unpack = table.concat, table.sort, table.unpack
local math_type, huge, floor, abs = math.type, math.huge, math.floor, math.abs
local getinfo, traceback = debug.getinfo, debug.traceback
local co_create, co_resume, co_status = coroutine.create, coroutine.resume, coroutine.status
local sb_poll, sb_fd, sb_pending = sb.poll, sb.fd, sb.pending
local wait = helpers.wait
local utf8_len = utf8.len

-- As lua5.4 sets it: scripts find their fixtures next to themselves.
arg = { [0] = script }

local scenarios = {}  -- {name, fn, where}, in definition order
local defined = {}    -- name -> where it was defined, to refuse a second one
local running = nil   -- the scenario being run: {name, steps, stack}
local output = {}     -- what print and io.write wrote
local output_bytes = 0
local OUTPUT_LIMIT = 64 * 1024
local NAME_LIMIT = 1024

---------------------------------------------------------------- showing values

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

---------------------------------------------------------------- deep equality

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

---------------------------------------------------------------- failures

-- The metatable of an expectation that did not hold. Locked, as every
-- metatable the runner makes: getmetatable answers a string, so a script
-- cannot reach FAILURE to give it a __gc (a finalizer runs with hooks off).
-- What is a failure is known by identity, in `failures` (weak keys): the
-- answer of getmetatable could be copied onto a table of the script's own.
local FAILURE = { __metatable = "expectation failure" }
local failures = setmetatable({}, { __mode = "k", __metatable = "locked" })
local function is_failure(err) return type(err) == "table" and failures[err] == true end

-- "file:line" of the innermost frame that is in the script (or in a file
-- other than this API), for the report.
local function caller_where()
  for level = 3, 40 do
    local info = getinfo(level, "Sl")
    if not info then break end
    if sub(info.source, 1, 1) == "@" and info.currentline > 0 then
      return info.short_src .. ":" .. info.currentline
    end
  end
  return nil
end

-- The stack where an error was raised, as the script's frames only: this
-- API's own (step, expect, the matchers, the runner's xpcall) say nothing to
-- the reader. The message is reported beside it, so it is not repeated here.
-- nil when no frame of the script is left. For message handlers.
local function script_traceback()
  local lines = {}
  for line in gmatch(traceback(nil, 3), "[^\n]+") do lines[#lines + 1] = line end
  local kept = {}
  for i, line in ipairs(lines) do
    local next_line = lines[i + 1] or ""
    local ours = find(line, "^\t%(scenario API%):")
      or (find(line, "^\t%[C%]: in %a+ '[x]?pcall'") and (find(next_line, "^\t%(scenario API%):") or next_line == ""))
      or (find(line, "^\t%[C%]: in %?$") and next_line == "")
    if not ours then kept[#kept + 1] = line end
  end
  return #kept > 1 and concat(kept, "\n") or nil
end

local function fail(message)
  local failure = setmetatable({ message = message, where = caller_where() }, FAILURE)
  failures[failure] = true
  error(failure, 0)
end

---------------------------------------------------------------- expect

local function pack(...) return { n = select("#", ...), ... } end

local function is_failure_result(values)
  return values[1] == nil and values.n >= 2
end

local matchers = {}

function matchers.to_equal(v, expected)
  local path, e, a = difference(expected, v.value, "", {})
  if path then
    local where = path == "" and "" or format(" (at %s)", sub(path, 1, 1) == "." and sub(path, 2) or path)
    if path == "" then
      fail(format("expected %s, got %s", show(expected), show(v.value)))
    end
    fail(format("expected %s, got %s%s: %s differs from %s", show(expected), show(v.value), where, show(a), show(e)))
  end
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
  err.message = format("%s (the call failed: %s %s)", err.message, tostring(state.values[2]), tostring(state.values[3] or ""))
  error(err, 0)
end

-- expect(actual) keeps every value it is given, so expect(sb.perform(...))
-- sees a failure's message and code too. Both expect(x).to_equal(y) and
-- expect(x):to_equal(y) work.
function expect(...)
  local state = { values = pack(...) }
  state.value = state.values[1]
  local expectation = {}
  return setmetatable(expectation, {
    __metatable = "expectation",
    __index = function(_, name)
      local matcher = matchers[name]
      if not matcher then error(format("expect(...) has no matcher %s", tostring(name)), 2) end
      return function(first, ...)
        if rawequal(first, expectation) then return with_reason(name, state, pcall(matcher, state, ...)) end
        return with_reason(name, state, pcall(matcher, state, first, ...))
      end
    end,
  })
end

---------------------------------------------------------------- scenario, step

function scenario(name, fn)
  -- Control characters: C0 and DEL (%c), and C1 (U+0080..U+009F, which
  -- UTF-8 writes as \194 and \128..\159: CSI, NEL...).
  if type(name) ~= "string" or name == "" or find(name, "%c") or find(name, "\194[\128-\159]") then
    error("scenario(name, fn): name must be a non-empty string without control characters", 2)
  end
  -- Reports carry the name (TAP, JUnit XML, the trace): it must be text, and short.
  if not utf8_len(name) then error("scenario(name, fn): name must be UTF-8 text", 2) end
  if #name > NAME_LIMIT then
    error(format("scenario(name, fn): name must be at most %d bytes (this one has %d)", NAME_LIMIT, #name), 2)
  end
  if type(fn) ~= "function" then error("scenario(name, fn): fn must be a function", 2) end
  if running then error("scenario() inside a scenario: define scenarios at the top level of the script", 2) end
  -- Two scenarios of one name could not be told apart in a report (JUnit
  -- would hold two test cases of that name): refused when the script is listed.
  local info = getinfo(2, "Sl")
  local where = info and (info.short_src .. ":" .. info.currentline) or "?"
  if defined[name] then
    error(format("scenario(name, fn): a scenario named %s is already defined (at %s); names must be unique in a script",
                 show(name), defined[name]), 2)
  end
  defined[name] = where
  scenarios[#scenarios + 1] = { name = name, fn = fn }
end

-- Runs fn as a named step; the report names the step that failed.
function step(name, fn)
  if type(name) ~= "string" then error("step(name, fn): name must be a string", 2) end
  if #name > NAME_LIMIT then
    error(format("step(name, fn): name must be at most %d bytes (this one has %d)", NAME_LIMIT, #name), 2)
  end
  if type(fn) ~= "function" then error("step(name, fn): fn must be a function", 2) end
  if not running then error("step() outside a scenario", 2) end
  local stack = running.stack
  local full = #stack > 0 and (stack[#stack].name .. " / " .. name) or name
  if #full > 4 * NAME_LIMIT then full = "... / " .. name end -- nested deep: the innermost names
  local record = { name = full, status = "running", started = now() }
  running.steps[#running.steps + 1] = record
  stack[#stack + 1] = record
  -- xpcall: the innermost step keeps the stack where an error was raised,
  -- which is gone by the time it reaches the scenario's handler.
  local ok, err = xpcall(fn, function(e)
    if not is_failure(e) and not (running.raised and rawequal(running.raised.err, e)) then
      running.raised = { err = e, traceback = script_traceback() }
    end
    return e
  end)
  stack[#stack] = nil
  record.seconds = now() - record.started
  if ok then
    record.status = "passed"
    return
  end
  record.status = "failed"
  -- The innermost step names the failure; outer steps pass the same error on.
  if not rawequal(running.failed_error, err) then
    running.failed_error, running.failed_step = err, full
  end
  error(err, 0)
end

---------------------------------------------------------------- output

-- Every way a scenario writes shares one limit of OUTPUT_LIMIT bytes: print
-- and io.write, which the report keeps, and io.stdout:write and
-- io.stderr:write, which go to standard error. Past it, what it writes is
-- counted, not kept or written (a scenario wrote 1 GiB to standard error in
-- 8 s); the report says how much that was.
local function capture(text)
  text = gsub(text, "%z", "\\0") -- the report is C strings
  if output_bytes < OUTPUT_LIMIT then
    output[#output + 1] = sub(text, 1, OUTPUT_LIMIT - output_bytes)
  end
  output_bytes = output_bytes + #text
end

function print(...)
  local n, parts = select("#", ...), {}
  for i = 1, n do parts[i] = tostring((select(i, ...))) end
  capture(concat(parts, "\t") .. "\n")
end

io.write = function(...)
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    if type(v) ~= "string" and type(v) ~= "number" then
      error(format("bad argument #%d to 'write' (string expected, got %s)", i, type(v)), 2)
    end
    capture(tostring(v))
  end
  return io.stdout
end

-- The standard streams' write is the method every file handle shares
-- (helpers.file_methods, the handles' __index): for io.stdout and io.stderr
-- it writes what is left of the limit and counts the rest; other files
-- (--allow-os) are written as ever. The original calls no Lua.
local file_methods = helpers.file_methods
if file_methods then
  local raw_write, stdout, stderr = file_methods.write, io.stdout, io.stderr
  file_methods.write = function(f, ...)
    if not (rawequal(f, stdout) or rawequal(f, stderr)) then return raw_write(f, ...) end
    local parts = {}
    for i = 1, select("#", ...) do
      local v = select(i, ...)
      if math_type(v) then
        v = format(math_type(v) == "integer" and "%d" or "%.14g", v) -- as the original writes numbers
      elseif type(v) ~= "string" then
        error(format("bad argument #%d to 'write' (string expected, got %s)", i, type(v)), 2)
      end
      parts[i] = v
    end
    local text = concat(parts)
    local room = OUTPUT_LIMIT - output_bytes
    output_bytes = output_bytes + #text
    if room >= #text then return raw_write(f, text) end
    if room > 0 then
      return raw_write(f, sub(text, 1, room), format("\n... (the output limit of %d KiB is reached: what the "
                       .. "scenario writes from here on is not shown)\n", OUTPUT_LIMIT // 1024))
    end
    return f
  end
end

local function captured_output()
  if output_bytes == 0 then return nil end
  local text = concat(output)
  if output_bytes > OUTPUT_LIMIT then text = text .. format("\n... (%d more bytes)", output_bytes - OUTPUT_LIMIT) end
  return text
end

---------------------------------------------------------------- --trace

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
      line[#line + 1] = '"target":' .. json(event.target, 0)
      line[#line + 1] = '"action":' .. json(event.action, 0)
    end
    line[#line + 1] = '"params":' .. json(event.params, 0)
    if event.code then
      line[#line + 1] = '"error":' .. json(event.message, 0)
      line[#line + 1] = '"code":' .. json(event.code, 0)
    else
      line[#line + 1] = '"result":' .. json(event.result, 0)
    end
    line[#line + 1] = format('"duration_us":%d', floor(event.duration * 1e6 + 0.5))
    helpers.trace("{" .. concat(line, ",") .. "}")
  end)
end

---------------------------------------------------------------- --coverage

-- What a scenario called, told apart at its end by what its mediator knew
-- then: a known target's listed action was called; a call that succeeded
-- though its action was not listed was answered by the target's notFound,
-- or, failing that (or for a target not known), by NoTargetAction. (The
-- rules and the degrade handler answer too; they are not told apart.)
local called = nil -- "target\taction" -> true when one such call succeeded

if helpers.coverage then
  called = {}
  sb.observe(function(event)
    if event.phase ~= "end" or not running or not event.target or not event.action then return end
    local key = event.target .. "\t" .. event.action
    called[key] = called[key] or not event.code
  end)
end

-- A name in a line of the report: tabs, newlines, any control byte, % and
-- every byte past ASCII as %XX, so that no name can split a line or a field
-- and its bytes come back as they are (the runner decodes).
local function field(name)
  return (gsub(name, "[%%%c\128-\255]", function(c) return format("%%%02X", byte(c)) end))
end

local function coverage_lines()
  local known, fixtures = {}, {}
  for _, t in ipairs(sb.routes().targets) do
    local actions = {}
    for _, name in ipairs(t.actions) do actions[name] = true end
    known[t.name] = actions
    fixtures[t.name] = t.origin == "registered" -- the script's own (sb.target): not counted
  end
  local lines, seen = {}, {}
  local function add(how, target, action)
    if fixtures[target] then return end
    local line = how .. "\t" .. field(target) .. "\t" .. field(action)
    if not seen[line] then seen[line], lines[#lines + 1] = true, line end
  end
  for key, succeeded in pairs(called) do
    local target, action = match(key, "^(.-)\t(.*)$")
    local actions = known[target]
    if actions and actions[action] then
      add("called", target, action)
    elseif succeeded and actions and actions.notFound then
      add("fallback", target, "notFound")
    elseif succeeded then
      add("fallback", "NoTargetAction", "response")
    end
  end
  table.sort(lines)
  return concat(lines, "\n")
end

---------------------------------------------------------------- the runner's side

local function where_of(message)
  return type(message) == "string" and match(message, "^([^:\n]+:%d+):") or nil
end

-- The error handler: failures stay failures, errors get a traceback.
local function handler(err)
  if is_failure(err) then return err end
  local message = type(err) == "string" and err or nil
  if not message and (type(err) == "table" or type(err) == "userdata") then
    local ok, text = pcall(tostring, err) -- its __tostring, if it has one
    if ok and type(text) == "string" and not find(text, "^%a+: 0x%x+$") then message = text end
  end
  message = message or ("error object: " .. show(err))
  -- Raised inside a step: the step saw the stack where it was raised.
  local raised = running and running.raised
  local trace = raised and rawequal(raised.err, err) and raised.traceback or script_traceback()
  return { error = true, message = message, where = where_of(message), traceback = trace }
end

local function current_step()
  local stack = running and running.stack
  return stack and #stack > 0 and stack[#stack].name or nil
end

-- The steps a report shows: all of them, or the first and the last
-- STEPS_SHOWN / 2 around a line saying how many are not shown.
local STEPS_SHOWN = 1000

local function step_reports()
  local steps, records = {}, running and running.steps or {}
  local function add(record)
    local status = record.status == "running" and "failed" or record.status
    steps[#steps + 1] = { name = record.name, status = status, seconds = record.seconds or (now() - record.started) }
  end
  local n, half = #records, STEPS_SHOWN // 2
  for i = 1, n do
    if n <= STEPS_SHOWN or i <= half or i > n - half then
      add(records[i])
    elseif i == half + 1 then
      steps[#steps + 1] = { name = format("(%d steps not shown)", n - 2 * half), status = "not shown", seconds = 0 }
    end
  end
  return steps
end

-- A scenario's body runs in a coroutine: a call to an action that answers
-- later suspends it (sb.perform yields), and the runner waits on sb.fd()
-- and calls sb.poll(), which resumes it, until the body is over. The wait
-- is bounded by the scenario's timeout (helpers.wait raises the limit).
local function run_body(fn)
  local ok, problem
  local body = co_create(function() ok, problem = xpcall(fn, handler) end)
  local resumed, err = co_resume(body)
  while resumed and co_status(body) == "suspended" do
    if sb_pending() == 0 then
      return false, handler("the scenario's body yielded outside a call to an asynchronous action "
                            .. "(coroutine.yield at its top level?): nothing would resume it")
    end
    local fd, message = sb_fd()
    if not fd or not wait then return false, handler("cannot wait for an asynchronous call: " .. tostring(message)) end
    wait(fd)
    sb_poll()
  end
  if not resumed then error(err, 0) end
  return ok, problem
end

local control = {}

function control.define(chunk)
  local ok, problem = xpcall(chunk, handler)
  if ok then return nil end
  if is_failure(problem) then
    return { message = "an expectation at the top level of the script: " .. problem.message, where = problem.where }
  end
  return problem
end

function control.names()
  local names = {}
  for i, s in ipairs(scenarios) do names[i] = s.name end
  return names
end

function control.run(index, name)
  local s = scenarios[index]
  if not s or s.name ~= name then
    return { outcome = "error", message = format("the script defined scenario %d as %q when listed, and now as %s: "
             .. "scenario names must not depend on the run", index, name, s and format("%q", s.name) or "nothing") }
  end
  output, output_bytes = {}, 0 -- the top level's output is not the scenario's
  running = { name = name, steps = {}, stack = {} }
  local ok, problem = run_body(s.fn)
  local report = { outcome = "passed", step = nil }
  if not ok then
    report.outcome = is_failure(problem) and "failed" or "error"
    report.message, report.where, report.traceback = problem.message, problem.where, problem.traceback
    report.step = running.failed_step or current_step()
  end
  report.steps = step_reports()
  report.output = captured_output()
  if called then report.calls = coverage_lines() end
  return report
end

function control.partial()
  return { step = current_step(), steps = step_reports(), output = captured_output() }
end

return control
