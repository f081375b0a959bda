-- A top level that fills the memory limit with strings of one size, drops
-- them, then does the same with the next size, 40 sizes. Run with
-- --max-memory 16. The state scenarios are forked from keeps small blocks in
-- free lists by size (Sources/SwitchboardRunner/arena.c): memory parked there
-- must count against the limit, or this holds 40 times the limit.
for c = 1, 40 do
  local keep, pad = {}, string.rep("x", 16 * c - 8)
  for i = 1, (8 << 20) // (16 * c + 40) do keep[i] = pad .. string.format("%07d", i) end
  keep = nil
  collectgarbage()
end

scenario("after the churn", function() expect(1).to_be(1) end)
