-- What a scenario writes: print, io.write and the standard streams, within
-- one limit. Part of the scenario API: exports captured_output and
-- reset_output.
local api, helpers = ...
local select, type, tostring, error, rawequal = select, type, tostring, error, rawequal
local format, gsub, sub = string.format, string.gsub, string.sub
local concat = table.concat
local math_type = math.type
local output = {}     -- what print and io.write wrote
local output_bytes = 0
local OUTPUT_LIMIT = 64 * 1024

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
local quiet_top_level = helpers.quiet_top_level
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
    -- A top level runs more than once (listed, prepared; the old way, again
    -- for each scenario): its standard streams are written when it is
    -- prepared only, and kept with its output otherwise (a script that
    -- does not load shows them in its report).
    if quiet_top_level and not api.state.running then
      capture(text)
      return f
    end
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

api.captured_output = captured_output
function api.reset_output() output, output_bytes = {}, 0 end
