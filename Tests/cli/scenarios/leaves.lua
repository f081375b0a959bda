-- Each scenario starts a process, writes its pid into $SB_PIDS, and runs on for 30 s.
local dir = assert(os.getenv("SB_PIDS"))
for i = 1, 2 do scenario("leaves a process " .. i, function()
  os.execute("sleep 97 & echo $! > " .. dir .. "/" .. i)
  local t = os.time() while os.time() - t < 30 do end
end) end
