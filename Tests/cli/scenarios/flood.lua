-- The first waits (30 s at most) until the second has flooded the trace.
local done = assert(os.getenv("SB_FLOODED"))
sb.target("L", { f = function() return true end })
scenario("waits for the flood", function()
  local deadline = os.time() + 30
  while os.time() <= deadline do
    local f = io.open(done, "r")
    if f then f:close() return end
  end
  error("the second scenario never finished flooding")
end)
scenario("floods the trace", function()
  local big = string.rep("x", 10000)
  for _ = 1, 12000 do sb.perform("L", "f", { s = big }) end
  assert(io.open(done, "w")):close()
end)
