-- `switchboard replay`, its middle part: the steps of a trace of format 2
-- (ScenarioAPI/record.lua wrote them) done again, in the order they
-- started. A step is a call of the module's (sb.perform, sb.target,
-- sb.rules...) made with the arguments recorded: options included, a
-- function of the script's replaced by a stand-in. The build calls the
-- stand-in where it called the script's function (an action of a target
-- the script registered, a callback in its params, an interceptor); the
-- stand-in takes that function's next recorded call, compares what it is
-- given with what the function was given, makes the calls the function
-- made (steps "in" it) and answers what the function answered. Exports
-- add_step, run_steps and more_answers.
local replay, wait, recorded_names = ...
local sb = sb
local revive, rewritten, list, shown, is_null = replay.revive, replay.rewritten, replay.list, replay.shown, replay.is_null
local type, next, ipairs, pcall, error, tostring, select = type, next, ipairs, pcall, error, tostring, select
local gsub, sub, concat, sort, pack, unpack = string.gsub, string.sub, table.concat, table.sort, table.pack, table.unpack
local co_create, co_resume, co_status = coroutine.create, coroutine.resume, coroutine.status
local math_type, tointeger, tonumber = math.type, math.tointeger, tonumber
local poll, fd, pending, cancellation = sb.poll, sb.fd, sb.pending, sb.cancellation
-- The functions a trace records (ScenarioAPI/record.lua): no other is
-- called, whatever a line names. Taken now, as the script's calls reached
-- them (a target replayed later could replace them in the table every
-- target shares).
local module = {}
for _, names in next, recorded_names do
  for _, name in ipairs(names) do
    if type(sb[name]) == "function" then module[name] = sb[name] end
  end
end

local steps = {}       -- seq -> record, the first line of each (the top level is recorded more than once)
local answers = {}     -- the report's lines
local id_of = {}       -- an interceptor's or observer's id as recorded -> as given now
local recorded_id_of = {} -- and back

-- One answer of the report (a name cut at 1 KiB: a forged one may be long).
local function answer(record, name, verdict)
  if record.setup then return end
  name = gsub(name, "[%c]", " ")
  if #name > 1024 then name = sub(shown(name), 1, 1024) .. "..." end
  answers[#answers + 1] = record.number .. "\t" .. name .. "\t" .. verdict
end

local function compare(record, name, recorded, now)
  if recorded == now then return answer(record, name, "same") end
  answer(record, name, "differs\t" .. shown(recorded) .. "\t" .. shown(now))
end

-- How a step's returns read in the report: a failure ({"code": ...}, by
-- its code only: messages change between builds), a result, or all of
-- them; a step that raised, by that only.
local function outcome(returns, raised)
  if raised ~= nil then return '{"raised":' .. rewritten(raised) .. "}" end
  if returns.n >= 3 and is_null(returns[1]) and type(returns[3]) == "string" then
    return '{"code":' .. rewritten(returns[3]) .. "}"
  end
  if returns.n == 1 then return '{"result":' .. rewritten(returns[1]) .. "}" end
  return '{"returns":' .. list(returns) .. "}"
end

-- The recorded returns, as the function gave them: a null first or last
-- was nil (a failure, or nothing); a table.pack.
local function returned(values)
  local out = { n = #values }
  for i = 1, out.n do out[i] = values[i] end
  for i = 1, out.n do
    if is_null(out[i]) and (i == 1 or i == out.n) then out[i] = nil end
  end
  return out
end

-- The name of a step in the report.
local function step_name(record)
  local args, op = record.args, record.op
  if (op == "perform" or op == "perform_async") and type(args[1]) == "string" and type(args[2]) == "string" then
    return args[1] .. "." .. args[2]
  end
  if op == "open" and type(args[1]) == "string" then return "open " .. args[1] end
  return "sb." .. tostring(op) .. (type(args[1]) == "string" and (" " .. args[1]) or "")
end

------------------------------------------------------------------ stand-ins

local recorded_calls = {} -- a function's number -> its recorded calls, in order
local stand_ins, labels, made_by = {}, {}, {}

local do_step -- (record, at the top) -> nothing; reports

-- What the build gives now, written with the recorded ids: an interceptor
-- named by default is "Lua interceptor <its id>", and ids count the
-- trace's own observers when it was recorded.
-- One pass over the text, whatever the number of ids (a trace may hold
-- thousands of intercept steps, and each stand-in's call writes its args).
local function as_recorded(text)
  return (gsub(text, '"Lua interceptor (%d+)"', function(now)
    local recorded = recorded_id_of[tointeger(tonumber(now))]
    if recorded then return '"Lua interceptor ' .. recorded .. '"' end
  end))
end

local function stand_in(id)
  if stand_ins[id] then return stand_ins[id] end
  local function fn(...)
    local queue = recorded_calls[id]
    local record = queue and queue.next <= #queue and queue[queue.next] or nil
    local label = "the script's " .. (labels[id] or ("function " .. id))
    if not record then -- nothing recorded is left: the build calls it more often now
      answer({ number = made_by[id] and made_by[id].number or 0 }, label,
             'differs\t{"called":false}\t{"called":true,"args":' .. shown(list(pack(...))) .. "}")
      return nil
    end
    queue.next = queue.next + 1
    record.given = pack(...) -- the functions among them are answered through ("replied" steps)
    compare(record, label, '{"args":' .. rewritten(record.args) .. "}", '{"args":' .. as_recorded(list(record.given)) .. "}")
    for _, child in ipairs(record.children or {}) do do_step(child, false) end
    if record.raised ~= nil then error(record.raised, 0) end
    local values = returned(revive(record.returns))
    return unpack(values, 1, values.n)
  end
  stand_ins[id] = fn
  return fn
end

----------------------------------------------------------------------- steps

function replay.add_step(record, number, setup)
  local seq, first = record.seq, steps[record.seq]
  -- The top level is recorded once by each process that ran it: its seqs repeat.
  if first and (setup or is_null(record.scenario)) then return end
  record.number, record.setup = number, setup
  if first then -- a scenario's step with a seq of its top level's: an edit, not replayed, and so said
    return answer(record, step_name(record), 'differs\t{"seq":' .. seq .. ',"line":' .. first.number
                  .. '}\t"a second step with this seq: not replayed"')
  end
  steps[seq] = record
end

-- Calls the step itself, in a coroutine when the script's call was made
-- in one (it may suspend it: sb.poll resumes it); the returns and whatever
-- it raised.
local function call(fn, args, in_coroutine)
  if not in_coroutine then
    local results = pack(pcall(fn, unpack(args, 1, args.n)))
    if results[1] then return pack(select(2, unpack(results, 1, results.n))) end
    return nil, results[2]
  end
  local results
  local co = co_create(function() results = pack(fn(unpack(args, 1, args.n))) end)
  local ok, err = co_resume(co)
  while ok and co_status(co) == "suspended" do
    if pending() == 0 then return nil, "the call suspended its coroutine with nothing to wait for" end
    wait(fd())
    poll()
  end
  if not ok then return nil, err end
  return results
end

-- The arguments of a step as it was made: functions of the script's as
-- stand-ins, cancellation tokens cancelled or not; nil and the placeholder
-- of a value that cannot be made again.
local function arguments(record)
  local name = step_name(record)
  local args, met = revive(record.args, function(kind, value, path)
    if kind == "cancel" then
      local token = cancellation()
      if value then token:cancel() end
      return token
    end
    if record.op == "observe" then return function() end end -- observers are not replayed
    if record.op == "target" and #path >= 2 then
      labels[value] = labels[value] or (tostring(record.args[1]) .. "." .. tostring(path[2]))
    elseif #path == 1 then
      labels[value] = labels[value] or (name .. " (argument " .. tostring(path[1]) .. ")")
    else
      labels[value] = labels[value] or (name .. " (" .. concat(path, ".", 2) .. ")")
    end
    made_by[value] = made_by[value] or record
    return stand_in(value)
  end)
  args.n = #record.args
  for i = 1, args.n do -- what the script left out (nil) reads back as null
    if is_null(args[i]) then args[i] = nil end
  end
  if (record.op == "unintercept" or record.op == "unobserve") and id_of[args[1]] then args[1] = id_of[args[1]] end
  return args, met
end

-- A "replied" step: the script's function answered through a function the
-- build gave it (an async interceptor's complete): it is called so again.
local function reply(record)
  local parent = steps[record["in"]]
  local name = "the script's " .. (labels[parent.fn] or ("function " .. parent.fn)) .. " (answering through argument "
    .. tostring(record.arg) .. ")"
  local fn = parent.given and parent.given[record.arg]
  if type(fn) ~= "function" then
    return answer(record, name, 'differs\t{"returns":' .. shown(rewritten(record.returns)) .. '}\t{"given":'
                  .. shown(parent.given and list(parent.given) or "null") .. "}")
  end
  local values = revive(record.args)
  local results, raised = call(fn, returned(values), false)
  compare(record, name, outcome(returned(record.returns)), outcome(results, raised))
end

function do_step(record, at_top)
  if record.op == "replied" and steps[record["in"]] and steps[record["in"]].op == "invoked" then
    return reply(record)
  end
  local name = step_name(record)
  if record.observer then
    return answer(record, name, "skipped\tan observer of the script's made it: observers hear calls and do not"
                  .. " answer them, so a replay does not run them")
  end
  local args, met = arguments(record)
  if met then
    return answer(record, name, "skipped\tits arguments held " .. met .. " (a C value the script got from a call,"
                  .. " a coroutine, or a table deeper than 32 levels is recorded by kind only): it cannot be made again")
  end
  local fn = module[record.op]
  local results, raised
  if fn then
    results, raised = call(fn, args, at_top and record.form == "coroutine")
  else
    raised = "not a step a trace records, or this build has no sb." .. tostring(record.op)
  end
  while at_top and pending() > 0 do -- every answer delivered before the next step
    wait(fd())
    poll()
  end
  if record.raised ~= nil and raised ~= nil then return answer(record, name, "same") end -- by that only
  local recorded = outcome(record.returns and returned(record.returns) or nil, record.raised)
  if (record.op == "intercept" or record.op == "observe") and results and math_type(results[1]) == "integer"
    and record.returns and math_type(record.returns[1]) == "integer" then
    id_of[record.returns[1]] = results[1] -- an id: whatever it is now, later steps use it
    recorded_id_of[results[1]] = record.returns[1]
    return answer(record, name, "same")
  end
  compare(record, name, recorded, outcome(results, raised))
end

-- Does the steps given, in the order they started: the setup, then the
-- scenario's; then reports the recorded calls of the script's functions
-- that the build did not make.
-- The answers not handed over yet, as many lines as fit in 96 KiB (the
-- runner hands a text over up to 128 KiB; a line is at most about 10):
-- "" once all were.
local handed = 0
function replay.more_answers()
  local page, size = {}, 0
  while handed < #answers and (size == 0 or size + #answers[handed + 1] < 96 * 1024) do
    handed = handed + 1
    page[#page + 1] = answers[handed]
    size = size + #answers[handed] + 1
  end
  return concat(page, "\n")
end

function replay.run_steps()
  local top, ordered = {}, {}
  for _, record in next, steps do ordered[#ordered + 1] = record end
  sort(ordered, function(a, b) return a.seq < b.seq end)
  for _, record in ipairs(ordered) do
    if record.op == "invoked" then
      local queue = recorded_calls[record.fn] or { next = 1 }
      recorded_calls[record.fn] = queue
      queue[#queue + 1] = record
    elseif record["in"] and record["in"] < record.seq and steps[record["in"]] and steps[record["in"]].op == "invoked" then
      local parent = steps[record["in"]] -- taken when the build calls that function again
      parent.children = parent.children or {}
      parent.children[#parent.children + 1] = record
    else
      top[#top + 1] = record
    end
  end
  for _, record in ipairs(top) do do_step(record, true) end
  for id, queue in next, recorded_calls do
    for i = queue.next, #queue do
      answer(queue[i], "the script's " .. (labels[id] or ("function " .. id)),
             'differs\t{"args":' .. shown(rewritten(queue[i].args)) .. '}\t{"called":false}')
    end
  end
  return replay.more_answers()
end
