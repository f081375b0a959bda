-- `switchboard run --jobs N` runs scenarios at once: the first two here can
-- pass only together, each waiting (5 s at most) for the other to have
-- started. Run with --allow-os (they meet through files) and SB_MEETING
-- naming an empty directory. The third makes a call later than the fourth
-- does, for the trace's order.
local meeting = assert(os.getenv("SB_MEETING"), "set SB_MEETING")

local function meet(me, other)
  assert(io.open(meeting .. "/" .. me, "w")):close()
  local deadline = os.time() + 5
  while os.time() <= deadline do
    local found = io.open(meeting .. "/" .. other, "r")
    if found then found:close() return end
  end
  error(other .. " never ran at the same time as " .. me)
end

sb.target("Echo", { say = function(p) return p.what end })

scenario("meets the second", function() meet("first", "second") end)
scenario("meets the first", function() meet("second", "first") end)

scenario("calls late", function()
  local t = os.clock() while os.clock() - t < 0.3 do end
  expect(sb.perform("Echo", "say", { what = "late" })).to_equal("late")
end)

scenario("calls at once", function()
  expect(sb.perform("Echo", "say", { what = "at once" })).to_equal("at once")
end)
