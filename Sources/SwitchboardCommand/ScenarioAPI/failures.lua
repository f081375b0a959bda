-- Expectations that did not hold, and where; skip(). Part of the scenario
-- API: exports is_failure, fail, caller_where, script_traceback, raise_skip
-- and is_skip.
local api = ...
local type, ipairs, error, setmetatable = type, ipairs, error, setmetatable
local sub, find, gmatch = string.sub, string.find, string.gmatch
local concat = table.concat
local getinfo, traceback = debug.getinfo, debug.traceback

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

-- A failure raised in a helper function of the script's (or a file it
-- requires) says where the scenario called it too: its traceback, when it
-- has more than one of the script's frames.
local function fail(message)
  local failure = setmetatable({ message = message, where = caller_where() }, FAILURE)
  local trace = script_traceback()
  if trace and find(trace, "\n[^\n]*\n") then failure.traceback = trace end
  failures[failure] = true
  error(failure, 0)
end

-- skip(reason) raises one of these: known by identity, as failures are.
local SKIP = { __metatable = "skipped" }
local skips = setmetatable({}, { __mode = "k", __metatable = "locked" })
local function is_skip(err) return type(err) == "table" and skips[err] == true end
local function raise_skip(reason)
  local marker = setmetatable({ reason = reason }, SKIP)
  skips[marker] = true
  error(marker, 0)
end

api.is_failure, api.fail, api.caller_where, api.script_traceback = is_failure, fail, caller_where, script_traceback
api.is_skip, api.raise_skip = is_skip, raise_skip
