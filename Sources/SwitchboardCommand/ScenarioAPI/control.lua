-- The runner's side: runs a scenario's body and makes its report. Part of
-- the scenario API, its last: returns the control table the runner drives
-- (see Sources/SwitchboardRunner/runner.c).
local api, helpers = ...
local type, tostring, ipairs, pcall, xpcall, error, rawequal = type, tostring, ipairs, pcall, xpcall, error, rawequal
local format, find, match = string.format, string.find, string.match
local co_create, co_resume, co_status = coroutine.create, coroutine.resume, coroutine.status
local sb_poll, sb_fd, sb_pending = sb.poll, sb.fd, sb.pending
local now, wait = helpers.now, helpers.wait
local show, is_failure, script_traceback = api.show, api.is_failure, api.script_traceback
local captured_output = api.captured_output
local state = api.state

local function where_of(message)
  return type(message) == "string" and match(message, "^([^:\n]+:%d+):") or nil
end

-- The error handler: failures stay failures, errors get a traceback.
local function handler(err)
  if is_failure(err) or api.is_skip(err) then return err end
  local message = type(err) == "string" and err or nil
  if not message and (type(err) == "table" or type(err) == "userdata") then
    local ok, text = pcall(tostring, err) -- its __tostring, if it has one
    if ok and type(text) == "string" and not find(text, "^%a+: 0x%x+$") then message = text end
  end
  message = message or ("error object: " .. show(err))
  -- Raised inside a step: the step saw the stack where it was raised.
  local running = state.running
  local raised = running and running.raised
  local trace = raised and rawequal(raised.err, err) and raised.traceback or script_traceback()
  return { error = true, message = message, where = where_of(message), traceback = trace }
end

local function current_step()
  local stack = state.running and state.running.stack
  return stack and #stack > 0 and stack[#stack].name or nil
end

-- The steps a report shows: all of them, or the first and the last
-- STEPS_SHOWN / 2 around a line saying how many are not shown.
local STEPS_SHOWN = 1000

local function step_reports()
  local steps, records = {}, state.running and state.running.steps or {}
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
-- `parts` returns ok, problem.
local function run_body(parts)
  local ok, problem
  local body = co_create(function() ok, problem = parts() end)
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

-- fn, protected; its problem says which hook it came from.
local function attempt(fn, hook)
  local ok, problem = xpcall(fn, handler)
  if not ok and hook and not api.is_skip(problem) then problem.hook = hook end
  return ok, problem
end

local function is_trouble(ok, problem) return not ok and not api.is_skip(problem) end

-- A problem's text for a message about another: "message (at file:line)".
local function told(problem)
  return problem.message .. (problem.where and (" (at " .. problem.where .. ")") or "")
end

-- The before_each hooks, the body, then the after_each hooks (the last set
-- runs first), which run whatever happened before them.
local function scenario_parts(s)
  return function()
    local hooks = api.hooks
    local ok, problem = true, nil
    for _, hook in ipairs(hooks.before_each) do
      ok, problem = attempt(hook, "before_each")
      if not ok then break end
    end
    if ok then ok, problem = attempt(s.fn) end
    for i = #hooks.after_each, 1, -1 do
      local done, trouble = attempt(hooks.after_each[i], "after_each")
      if is_trouble(done, trouble) then
        if is_trouble(ok, problem) then
          problem.message = problem.message .. "\n(after_each failed too: " .. told(trouble) .. ")"
        else
          ok, problem = false, trouble
        end
      end
    end
    return ok, problem
  end
end

-- Runs hooks of one kind at the top level (before_all, after_all): nil, or
-- the first problem, its message saying which.
local function run_hooks(kind, last_first)
  local list = api.hooks[kind]
  if #list == 0 then return nil end
  local ok, problem = run_body(function()
    local from, to, by = 1, #list, 1
    if last_first then from, to, by = #list, 1, -1 end
    for i = from, to, by do
      local done, trouble = attempt(list[i], kind)
      if not done then return false, trouble end
    end
    return true
  end)
  if ok then return nil end
  return { outcome = is_failure(problem) and "failed" or "error", message = kind .. " failed: " .. problem.message,
           where = problem.where, traceback = problem.traceback, step = "(" .. kind .. ")", output = captured_output() }
end

local control = {}

function control.define(chunk)
  local ok, problem = xpcall(chunk, handler)
  if ok then return nil end
  if is_failure(problem) then
    return { message = "an expectation at the top level of the script: " .. problem.message, where = problem.where,
             output = captured_output() }
  end
  problem.output = captured_output()
  return problem
end

-- The scenarios, as the runner lists them: name, tags, skip, todo.
function control.list()
  local list = {}
  for i, s in ipairs(state.scenarios) do list[i] = { name = s.name, tags = s.tags, skip = s.skip, todo = s.todo } end
  return list
end

function control.before_all() return run_hooks("before_all") end
-- after_all: nil or its problem, and what its hooks wrote (told with the
-- last scenario's output).
function control.after_all()
  api.reset_output()
  local problem = run_hooks("after_all", true)
  return problem, captured_output()
end

function control.top_output() return captured_output() end

-- One scenario; `whole`: in a state of its own (the old way), with
-- before_all before it and after_all after it.
function control.run(index, name, whole)
  local s = state.scenarios[index]
  if not s or s.name ~= name then
    return { outcome = "error", message = format("the script defined scenario %d as %q when listed, and now as %s: "
             .. "scenario names must not depend on the run", index, name, s and format("%q", s.name) or "nothing") }
  end
  if whole then
    local problem = control.before_all()
    if problem then return problem end
  end
  api.reset_output() -- the top level's output is not the scenario's
  api.forget_calls()
  local running = { name = name, steps = {}, stack = {}, expectations = 0 }
  state.running = running
  local ok, problem = run_body(scenario_parts(s))
  local report = { outcome = "passed", step = nil, expectations = running.expectations }
  if api.is_skip(problem) then
    report.outcome, report.message = "skipped", problem.reason
  elseif not ok then
    report.outcome = is_failure(problem) and "failed" or "error"
    report.message, report.where, report.traceback = problem.message, problem.where, problem.traceback
    report.step = running.failed_step or current_step() or (problem.hook and "(" .. problem.hook .. ")")
  end
  report.steps = step_reports()
  report.output = captured_output()
  if api.coverage_lines then report.calls = api.coverage_lines() end
  if whole then
    state.running = nil
    local trouble, wrote = control.after_all()
    if wrote and wrote ~= "" then report.output = (report.output or "") .. wrote end
    if trouble then control.add_trouble(report, trouble) end
  end
  return report
end

-- after_all's problem, told on the report of the scenario before it.
function control.add_trouble(report, trouble)
  if report.outcome == "passed" or report.outcome == "skipped" then
    report.outcome, report.message = trouble.outcome, trouble.message
    report.where, report.traceback, report.step = trouble.where, trouble.traceback, trouble.step
  else
    report.message = report.message .. "\n(" .. trouble.message .. (trouble.where and (" at " .. trouble.where) or "") .. ")"
  end
end

function control.partial()
  return { step = current_step(), steps = step_reports(), output = captured_output() }
end

return control
