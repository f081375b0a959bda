-- Processes that leave the scenario's process group (setpgrp) or session
-- (setsid), and one orphaned (its parent gone), each writing its pid into
-- $SB_PIDS/<tag>.<kind>; run with --allow-os.
local dir = assert(os.getenv("SB_PIDS"))

-- Waits until the process in `file` runs `comm` (it has left its group or
-- session, then exec'd), 10 s at most.
local function running(file, comm)
  local deadline = os.time() + 10
  while os.time() <= deadline do
    local f = io.open(file)
    local pid = f and f:read("l")
    if f then f:close() end
    local c = pid and io.open("/proc/" .. pid .. "/comm")
    if c then
      local name = c:read("l")
      c:close()
      if name == comm then return end
    end
  end
  error("no " .. comm .. " in " .. file)
end

local function leave(tag)
  local at = dir .. "/" .. tag
  os.execute("python3 -c 'import os; os.setpgrp(); os.execvp(\"sleep\", [\"sleep\", \"97\"])' & echo $! > " .. at .. ".pgrp")
  os.execute("setsid sleep 98 & echo $! > " .. at .. ".sid")
  os.execute("(setsid sleep 99 & echo $! > " .. at .. ".orphan) &")
  running(at .. ".pgrp", "sleep")
  running(at .. ".sid", "sleep")
  running(at .. ".orphan", "sleep")
end

scenario("leaves processes and ends", function() leave("ended") end)
scenario("leaves processes and waits", function()
  leave("waiting")
  local t = os.time() while os.time() - t < 30 do end
end)
