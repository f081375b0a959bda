-- --trace: what the script itself does to the mediator, a line a step, so
-- that `switchboard replay` can do it again (replay_steps.lua). The calls it
-- makes (with their options, and whether a coroutine made them), the
-- targets, URL patterns, rules, interceptors... it sets up, and each time
-- the build calls a function of the script's (an action of a target it
-- registered, a callback in its params, an interceptor): what the function
-- got, what it answered and the calls it made meanwhile. Part of the
-- scenario API, after trace.lua (its writer and line head); nothing
-- without --trace.
local api, helpers = ...
local sb = sb
local type, next, ipairs, rawequal, tostring, pcall, error = type, next, ipairs, rawequal, tostring, pcall, error
local getmetatable, setmetatable = getmetatable, setmetatable
local format, find, gsub, concat, pack, unpack = string.format, string.find, string.gsub, table.concat, table.pack,
  table.unpack
local getinfo = debug.getinfo
local running, status, isyieldable = coroutine.running, coroutine.status, coroutine.isyieldable
local json, trace_head, announce = api.json, api.trace_head, api.announce_script_call
local write, state = helpers.trace, api.state

-- The module's functions that change what answers a call, or make one.
-- Not recorded: load_plugin and sb.path (they load code from files: a
-- replay is given the same --plugin and --targets), and what only reads
-- (routes, lookup, build_url, sign_url, pending, fd, poll, cancelled...).
local CALLS = { "perform", "open", "perform_async", "perform_service" }
local SETUP = { "target", "unregister", "evict", "url_pattern", "remove_url_pattern", "remove_url_patterns",
                "rules", "intercept", "unintercept", "observe", "unobserve", "degrade", "scheme", "converter",
                "unmatched", "policy", "on_rejected", "require_signed_urls", "service", "bind_service",
                "remove_service" }

-- `switchboard replay` writes what a call gives now with the trace's own
-- writer, so that a record and a replayed result compare as text, and does
-- again only the steps named here (replay_steps.lua).
if helpers.keep_json then helpers.keep_json(json, { calls = CALLS, setup = SETUP }) end
if not helpers.trace then return end

local seq = 0 -- each step's number, in the order they start (per Lua state)

-------------------------------------------------------------- who runs now

-- What runs now, innermost last, each on its coroutine: {kind = "build"}
-- while a call the script made is in the build, {kind = "script", seq = n}
-- while the build runs a function of the script's (step n), {kind =
-- "observer"} while an observer of the script's hears a call.
local frames, frames_owner = {}, nil
local inherited = setmetatable({}, { __mode = "k" }) -- coroutine -> the frame it was started in

local function push(frame) frames[#frames + 1] = frame end
local function pop(frame)
  for i = #frames, 1, -1 do
    if rawequal(frames[i], frame) then
      for j = i, #frames do frames[j] = frames[j + 1] end
      return
    end
  end
end

-- The frame the code running now belongs to: its coroutine's innermost; or
-- the one the coroutine was started in (a coroutine a target's action
-- starts goes on after the action returned); or, the first time, the
-- innermost of the coroutines that resumed it ("normal"). nil: the script.
local function current_frame()
  local co = running()
  for i = #frames, 1, -1 do
    if rawequal(frames[i].co, co) then return frames[i] end
  end
  local frame = inherited[co]
  if frame then return frame end
  for i = #frames, 1, -1 do
    if status(frames[i].co) == "normal" then
      inherited[co] = frames[i]
      return frames[i]
    end
  end
  return nil
end

----------------------------------------------------------------- values

local ids = setmetatable({}, { __mode = "k" }) -- a function of the script's -> its number
local functions_seen = 0
local token_metatable = nil

local function is_token(v)
  if type(v) ~= "userdata" then return false end
  token_metatable = token_metatable or getmetatable(sb.cancellation())
  return rawequal(getmetatable(v), token_metatable)
end

-- How a step's arguments write what JSON cannot hold: a function of the
-- script's by its number, a cancellation token by whether it was cancelled.
local function refs(v)
  if type(v) == "function" and ids[v] then return format('{"$fn":%d}', ids[v]) end
  if is_token(v) then
    local ok, cancelled = pcall(v.cancelled, v)
    return format('{"$cancel":%s}', tostring(ok and cancelled == true))
  end
  return nil
end

local function list(values, with_refs)
  local parts = {}
  for i = 1, values.n do parts[i] = json(values[i], 0, with_refs and refs or nil) end
  return "[" .. concat(parts, ",") .. "]"
end

local function line_of(fields)
  write("{" .. trace_head() .. "," .. concat(fields, ",") .. "}")
end

----------------------------------------------- the script's own functions

local proxies = { script = setmetatable({}, { __mode = "k" }), observer = setmetatable({}, { __mode = "k" }) }

-- Step `frame` (a call of a function of the script's) has ended.
local function invoked(frame, results, raised)
  frame.written = true
  local fields = { format('"seq":%d', frame.seq), format('"op":"invoked","fn":%d', frame.fn), '"args":' .. frame.args }
  if raised ~= nil then
    fields[#fields + 1] = '"raised":' .. json(type(raised) == "string" and raised or tostring(raised), 0)
  else
    fields[#fields + 1] = '"returns":' .. list(results)
  end
  if frame.later then fields[#fields + 1] = '"later":true' end
  line_of(fields)
end

local ending = {
  __close = function(frame, err)
    pop(frame)
    if err ~= nil and frame.seq and not frame.written then invoked(frame, nil, err) end
  end,
}

-- The arguments the build gives a function of the script's, each function
-- among them (an async interceptor's `complete`) recorded when the script
-- calls it: a step "replied", in the function's call.
local function replying(frame, ...)
  local args = pack(...)
  for i = 1, args.n do
    local given = args[i]
    if type(given) == "function" then
      args[i] = function(...)
        seq = seq + 1
        local fields = { format('"seq":%d', seq), format('"in":%d', frame.seq), format('"op":"replied","arg":%d', i),
                         '"args":' .. list(pack(...)) }
        local results = pack(given(...))
        fields[#fields + 1] = '"returns":' .. list(results)
        line_of(fields)
        return unpack(results, 1, results.n)
      end
    end
  end
  return unpack(args, 1, args.n)
end

-- What the build calls instead of a function of the script's: the
-- function, recorded (an observer's calls are only marked as its own).
local function proxy(fn, kind)
  local made = proxies[kind][fn]
  if made then return made end
  if not ids[fn] then
    functions_seen = functions_seen + 1
    ids[fn] = functions_seen
  end
  local id = ids[fn]
  if kind == "observer" then
    made = function(...)
      local frame <close> = setmetatable({ kind = "observer", co = running() }, ending)
      push(frame)
      return fn(...)
    end
  else
    made = function(...)
      seq = seq + 1
      local frame <close> = setmetatable({ kind = "script", co = running(), seq = seq, fn = id,
                                          args = list(pack(...)) }, ending)
      push(frame)
      local results = pack(fn(replying(frame, ...)))
      if not frame.later then invoked(frame, results) end
      return unpack(results, 1, results.n)
    end
  end
  proxies[kind][fn] = made
  return made
end

-- `v` with every function of the script's in it replaced by its proxy
-- (tables copied, not changed), to 32 levels as the trace writes them.
local function swapped(v, kind, depth, copies)
  local t = type(v)
  if t == "function" then return proxy(v, kind), true end
  if t ~= "table" or depth > 32 then return v, false end
  if copies[v] then return copies[v], true end
  local changed = {}
  for k, item in next, v do
    local new, differs = swapped(item, kind, depth + 1, copies)
    if differs then changed[k] = new end
  end
  if next(changed) == nil then return v, false end
  local copy = {}
  copies[v] = copy
  for k, item in next, v do copy[k] = item end
  for k, new in next, changed do copy[k] = new end
  return setmetatable(copy, getmetatable(v)), true
end

-- sb.later in an action of the script's: the action's record waits for
-- the answer its `complete` gives. The module runs `fn` once the action
-- has returned: what `fn` does is still the action's.
do
  local later = sb.later
  local answering = {
    __close = function(guard, err)
      pop(guard.frame)
      if err ~= nil and not guard.frame.written then invoked(guard.frame, nil, err) end
    end,
  }
  sb.later = function(fn, ...)
    local frame = current_frame()
    if type(fn) == "function" and frame and frame.kind == "script" and not frame.later then
      frame.later = true
      local inner = fn
      fn = function(complete, ...)
        local guard <close> = setmetatable({ frame = frame }, answering)
        frame.co = running()
        push(frame)
        return inner(function(...)
          if not frame.written then invoked(frame, pack(...)) end
          return complete(...)
        end, ...)
      end
    end
    return later(fn, ...)
  end
end

------------------------------------------------------------------- steps

local Step = {}
Step.__index = Step
Step.__close = function(step, err)
  if step.frame then pop(step.frame) end
  announce(false)
  if err ~= nil and not step.done then
    step.done = true
    local fields = step.fields
    fields[#fields + 1] = '"raised":' .. json(type(err) == "string" and err or tostring(err), 0)
    line_of(fields)
  end
end
-- Not the script's (code of the build's own, a Lua target calling out): as it is.
local passing = setmetatable({}, { __close = function() end })

local function arguments(step, ...)
  if rawequal(step, passing) then return ... end
  return unpack(step.passed, 1, step.passed.n)
end

local function begin(name, is_call, ...)
  if not rawequal(state.running, frames_owner) then
    frames, frames_owner, inherited = {}, state.running, setmetatable({}, { __mode = "k" })
  end
  local frame = current_frame()
  if frame and frame.kind == "build" then return passing end
  seq = seq + 1
  local values = pack(...)
  local step = setmetatable({ passed = swapped(values, name == "observe" and "observer" or "script", 0, {}) }, Step)
  local fields = { format('"seq":%d', seq) }
  if frame and frame.kind == "script" then fields[#fields + 1] = format('"in":%d', frame.seq) end
  if frame and frame.kind == "observer" then fields[#fields + 1] = '"observer":true' end
  fields[#fields + 1] = '"op":' .. json(name, 0)
  fields[#fields + 1] = '"args":' .. list(values, true)
  local co, main = running()
  if is_call then
    if not main and isyieldable() then fields[#fields + 1] = '"form":"coroutine"' end
    if frame == nil then announce(true) end -- the scenario's own call: depth 1 (trace.lua)
    step.frame = { kind = "build", co = co }
    push(step.frame)
  end
  step.fields = fields
  return step
end

-- What the module raised, as it reads without the trace: at the line of
-- the wrapper's caller (level 4 from here), under the name that called it
-- (level 3), as luaL_argerror and luaL_error write them.
local function untraced(err, name)
  if type(err) ~= "string" then return err end
  local called, caller = getinfo(3, "n"), getinfo(4, "Sl")
  err = gsub(err, "^(bad argument #%d+ to )'%?'", function(head)
    return head .. "'" .. (called and called.name or ("switchboard." .. name)) .. "'"
  end, 1)
  if caller and caller.currentline > 0 and not find(err, "^[^\n]-:%d+: ") then
    err = caller.short_src .. ":" .. caller.currentline .. ": " .. err
  end
  return err
end

local function finish(step, name, ok, ...)
  if rawequal(step, passing) then
    if ok then return ... end
    error(untraced(..., name), 0)
  end
  if not ok then error(untraced(..., name), 0) end -- the step's __close writes it
  announce(false) -- taken by the call's start event, unless it was refused before any
  step.done = true
  if step.frame then pop(step.frame) end
  local fields = step.fields
  fields[#fields + 1] = '"returns":' .. list(pack(...))
  line_of(fields)
  return ...
end

-- Each recorded function is replaced by one that calls it in a pcall (so
-- that what it raises is recorded) and raises it again as it read without
-- the trace ("x.lua:3: bad argument #2 to 'target'"); a call that suspends
-- its coroutine suspends through the pcall.
local function wrap(name, is_call)
  local raw = sb[name]
  if type(raw) ~= "function" then return end
  local function wrapper(...)
    local step <close> = begin(name, is_call, ...)
    return finish(step, name, pcall(raw, arguments(step, ...)))
  end
  for key, value in next, sb do -- aliases (sb.release is sb.evict) stay aliases
    if rawequal(value, raw) then sb[key] = wrapper end
  end
end

for _, name in ipairs(CALLS) do wrap(name, true) end
for _, name in ipairs(SETUP) do wrap(name, false) end
