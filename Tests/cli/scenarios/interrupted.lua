-- Six scenarios that pass, a seventh that waits to be interrupted (it says
-- so in the file $SB_READY, with --allow-os), and three after it.
sb.target("T", { f = function() return true end })
for i = 1, 6 do
  scenario("passes " .. i, function() expect(sb.perform("T", "f")).to_be_true() end)
end
scenario("waits for the signal", function()
  sb.perform("T", "f")
  assert(io.open(assert(os.getenv("SB_READY")), "w")):close()
  local t = os.time() while os.time() - t < 60 do end
end)
for i = 8, 10 do scenario("never runs " .. i, function() end) end
