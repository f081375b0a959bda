-- `switchboard replay`, its last part: the function each trace line is
-- handed to (Replay.swift), as "MODE NUMBER<tab>LINE":
--   call:  a format-1 record (a call the scenario made), re-issued at once;
--          answers its verdict
--   setup: a format-2 step of the script's top level, done again before the
--          scenario's own, not compared (replay_steps.lua); answers ""
--   step:  a format-2 step of the scenario; answers ""
-- and "run", which does the format-2 steps given and answers a line
-- "NUMBER<tab>NAME<tab>VERDICT" for each one compared: the first lines, and
-- "more" the next ones, "" once there are none left.
-- A verdict is "same", "differs<tab>recorded<tab>now" or
-- "skipped<tab>reason"; recorded and now are JSON texts (the trace
-- writer's: no raw tab).
local replay = ...
local sb = sb
-- Taken now: a target replayed later could replace sb.perform in the table
-- every target shares, and the harness would believe its answers.
local perform, open, null = sb.perform, sb.open, sb.null
local decode, revive, rewritten, shown = replay.decode, replay.revive, replay.rewritten, replay.shown
local match, gsub, lower = string.match, string.gsub, string.lower
local pcall, tostring, tonumber, type, rawequal = pcall, tostring, tonumber, type, rawequal

-- Whether an ENOTARGET message names the record's own target (a perform's
-- target; a URL's host, in any case), not one the target called.
local function names_own_target(record, message)
  if type(message) ~= "string" then return false end
  local named = match(message, '^no target named "(.-)"')
  if named == nil then return false end
  if record.call == "open" then
    local host = match(record.url or "", "^%a[%w+.-]*://([^/?#]*)")
    return host ~= nil and lower(host) == lower(named)
  end
  return named == record.target
end

-- A format-1 record: re-issued with its params, and no options (the format
-- did not record them).
local function replay_call(line)
  local record = decode(line)
  local params, unreplayable = record.params, nil
  if rawequal(params, null) then params = nil else params, unreplayable = revive(params) end
  if unreplayable then
    return "skipped\tits params held " .. unreplayable .. " (a function, C value or table deeper than 32 levels"
      .. " is recorded by kind only): it cannot be made again from the trace"
  end
  -- A misuse raises (a target name no call could have had): a trace never
  -- records one, so a forged line that names one differs.
  local ok, result, message, code
  if record.call == "open" then
    ok, result, message, code = pcall(open, record.url, params)
  else
    ok, result, message, code = pcall(perform, record.target, record.action, params)
  end
  if not ok then result, message, code = nil, tostring(result), nil end
  local recorded_code = record.code
  if recorded_code ~= nil then recorded_code = rewritten(recorded_code) end
  -- A target the scenario registered from Lua (sb.target) is not in the
  -- plugins or the --targets directories, and a format-1 trace did not
  -- record it: it cannot be called again, which says nothing about the
  -- build. Only the call's own target: a target it calls that is gone now
  -- is a difference.
  if code == "ENOTARGET" and recorded_code ~= '"ENOTARGET"' and names_own_target(record, message) then
    return "skipped\tits target is not loaded now (ENOTARGET: " .. gsub(message or "", "[%c]", " ")
      .. "); a trace of format 1 does not record the targets a scenario registered from Lua (record it again)"
  end
  local recorded, now
  if recorded_code ~= nil then
    recorded = '{"code":' .. recorded_code .. "}"
  else
    recorded = '{"result":' .. rewritten(record.result) .. "}"
  end
  if not ok then
    now = '{"raised":' .. rewritten(message) .. "}"
  elseif code ~= nil then
    now = '{"code":' .. rewritten(code) .. "}"
  else
    now = '{"result":' .. rewritten(result) .. "}"
  end
  if recorded == now then return "same" end
  return "differs\t" .. shown(recorded) .. "\t" .. shown(now)
end

return function(text)
  if text == "run" then return replay.run_steps() end
  if text == "more" then return replay.more_answers() end
  local mode, number, line = match(text, "^(%a+) (%d+)\t(.*)$")
  if mode == "call" then return replay_call(line) end
  replay.add_step(decode(line), tonumber(number), mode == "setup")
  return ""
end
