-- scenario(name, fn) and step(name, fn) (globals). Part of the scenario
-- API: keeps api.state.scenarios, and api.state.running while one runs.
local api, helpers = ...
local type, error, xpcall, rawequal = type, error, xpcall, rawequal
local format, find = string.format, string.find
local getinfo = debug.getinfo
local utf8_len = utf8.len
local now = helpers.now
local show, is_failure, script_traceback = api.show, api.is_failure, api.script_traceback
local state = api.state
local NAME_LIMIT = api.NAME_LIMIT
local defined = {}    -- name -> where it was defined, to refuse a second one

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
  if state.running then error("scenario() inside a scenario: define scenarios at the top level of the script", 2) end
  -- Two scenarios of one name could not be told apart in a report (JUnit
  -- would hold two test cases of that name): refused when the script is listed.
  local info = getinfo(2, "Sl")
  local where = info and (info.short_src .. ":" .. info.currentline) or "?"
  if defined[name] then
    error(format("scenario(name, fn): a scenario named %s is already defined (at %s); names must be unique in a script",
                 show(name), defined[name]), 2)
  end
  defined[name] = where
  local scenarios = state.scenarios
  scenarios[#scenarios + 1] = { name = name, fn = fn }
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
