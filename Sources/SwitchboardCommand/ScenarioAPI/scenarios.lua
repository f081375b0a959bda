-- scenario(name, [options,] fn), step(name, fn), skip([reason]) and the
-- hooks (before_each, after_each, before_all, after_all): globals. Part of
-- the scenario API: keeps api.state.scenarios (api.state.running is the one
-- running) and api.hooks.
local api, helpers = ...
local next, type, error, xpcall, rawequal, rawget = next, type, error, xpcall, rawequal, rawget
local format, find, match = string.format, string.find, string.match
local concat, sort = table.concat, table.sort
local math_type = math.type
local getinfo = debug.getinfo
local utf8_len = utf8.len
local now = helpers.now
local show, is_failure, script_traceback = api.show, api.is_failure, api.script_traceback
local state = api.state
local NAME_LIMIT = api.NAME_LIMIT
local defined = {}    -- name -> where it was defined, to refuse a second one

-- require finds the modules beside the script first, whatever the working
-- directory (a template cannot hold a directory whose name has ; or ?).
do
  local dir = match(helpers.script, "^(.*)/[^/]*$")
  local prefix = dir == nil and "./" or (dir == "" and "/" or dir .. "/")
  if type(package) == "table" and type(package.path) == "string" and not find(prefix, "[;?]") then
    package.path = prefix .. "?.lua;" .. prefix .. "?/init.lua;" .. package.path
  end
end

-- Text a report carries (a name, a reason): a string of UTF-8 without
-- control characters (C0 and DEL, %c; C1, U+0080..U+009F, which UTF-8
-- writes as \194 and \128..\159: CSI, NEL...), at most NAME_LIMIT bytes.
-- nil when it is, else what is wrong with it.
local function not_text(s)
  if type(s) ~= "string" or s == "" or find(s, "%c") or find(s, "\194[\128-\159]") then
    return "a non-empty string without control characters"
  end
  if not utf8_len(s) then return "UTF-8 text" end
  if #s > NAME_LIMIT then return format("at most %d bytes (this one has %d)", NAME_LIMIT, #s) end
  return nil
end

local USAGE = "scenario(name, [options,] fn)"
local TAG_LIMIT, TAGS_LIMIT = 64, 64

-- skip = true | "reason" | false/nil; todo likewise: the reason, "" for
-- none given, or nil.
local function reason(options, key)
  local v = rawget(options, key)
  if v == nil or v == false then return nil end
  if v == true then return "" end
  local wrong = not_text(v)
  if wrong then error(format("%s: %s must be true, false or a reason: %s", USAGE, key, wrong), 3) end
  return v
end

-- The tags, each followed by "\n" (what the runner reads), or nil.
local function tags_of(options)
  local tags = rawget(options, "tags")
  if tags == nil then return nil end
  if type(tags) ~= "table" then error(format("%s: tags must be a table of strings", USAGE), 3) end
  local list, seen, n = {}, {}, 0
  for i, tag in next, tags do
    n = n + 1
    if math_type(i) ~= "integer" or i < 1 or i > TAGS_LIMIT or n > TAGS_LIMIT then
      error(format("%s: tags must be a list of at most %d strings", USAGE, TAGS_LIMIT), 3)
    end
    -- Tags are words a command line names (--tag slow): letters, digits,
    -- and _ . : - only.
    if type(tag) ~= "string" or not find(tag, "^[A-Za-z0-9_.:%-]+$") or #tag > TAG_LIMIT then
      error(format("%s: tag %s must be a word of at most %d letters, digits, _ . : or -", USAGE,
                   type(tag) == "string" and show(tag) or type(tag), TAG_LIMIT), 3)
    end
    if not seen[tag] then seen[tag] = true; list[#list + 1] = tag end
  end
  if #list == 0 then return nil end
  sort(list) -- an order of their own: the same tags are the same text
  return concat(list, "\n") .. "\n"
end

local OPTIONS = { tags = true, skip = true, todo = true }

function scenario(name, options, fn)
  if fn == nil and type(options) == "function" then options, fn = nil, options end
  local wrong = not_text(name)
  if wrong then error(format("%s: name must be %s", USAGE, wrong), 2) end
  if options ~= nil and type(options) ~= "table" then
    error(format("%s: options must be a table ({tags = {...}, skip = reason, todo = reason})", USAGE), 2)
  end
  if type(fn) ~= "function" then error(format("%s: fn must be a function", USAGE), 2) end
  if state.running then error("scenario() inside a scenario: define scenarios at the top level of the script", 2) end
  local tags, skip, todo
  if options then
    for key in next, options do
      if not OPTIONS[key] then
        error(format("%s: no option %s (tags, skip and todo are)", USAGE, show(key)), 2)
      end
    end
    tags, skip, todo = tags_of(options), reason(options, "skip"), reason(options, "todo")
  end
  -- Two scenarios of one name could not be told apart in a report (JUnit
  -- would hold two test cases of that name): refused when the script is listed.
  local info = getinfo(2, "Sl")
  local where = info and (info.short_src .. ":" .. info.currentline) or "?"
  if defined[name] then
    error(format("%s: a scenario named %s is already defined (at %s); names must be unique in a script",
                 USAGE, show(name), defined[name]), 2)
  end
  defined[name] = where
  local scenarios = state.scenarios
  scenarios[#scenarios + 1] = { name = name, fn = fn, tags = tags, skip = skip, todo = todo }
end

-- skip([reason]) inside a scenario: it stops here and is reported skipped.
-- (A marker raised as an error: a pcall in the script catches it, as it
-- would a failed expectation.)
function skip(why)
  if not state.running then error("skip() outside a scenario: use scenario(name, {skip = reason}, fn)", 2) end
  if why ~= nil then
    local wrong = not_text(why)
    if wrong then error("skip(reason): reason must be " .. wrong, 2) end
  end
  api.raise_skip(why or "")
end

-- Hooks, set at the top level, for every scenario of the script:
-- before_each and after_each run in each scenario's own process, around
-- its body; before_all runs once, after the top level, and what it sets up
-- each scenario gets a copy of; after_all runs once, after the last one.
local hooks = { before_each = {}, after_each = {}, before_all = {}, after_all = {} }
api.hooks = hooks
for kind, list in next, hooks do
  _ENV[kind] = function(fn)
    if type(fn) ~= "function" then error(kind .. "(fn): fn must be a function", 2) end
    if state.running then error(kind .. "() inside a scenario: set hooks at the top level of the script", 2) end
    if #list >= 1000 then error(kind .. "(fn): at most 1000 of them", 2) end
    list[#list + 1] = fn
  end
end

-- Runs fn as a named step; the report names the step that failed.
function step(name, fn)
  if type(name) ~= "string" then error("step(name, fn): name must be a string", 2) end
  if #name > NAME_LIMIT then
    error(format("step(name, fn): name must be at most %d bytes (this one has %d)", NAME_LIMIT, #name), 2)
  end
  if type(fn) ~= "function" then error("step(name, fn): fn must be a function", 2) end
  local running = state.running
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
