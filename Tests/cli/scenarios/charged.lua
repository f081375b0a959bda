-- What the library keeps for a scenario counts against --max-memory (issue
-- 19, item 13). Run with --max-memory 32.
scenario("targets with long names", function()
  local long = string.rep("n", 1 << 20)
  for i = 1, 600 do
    sb.target(long .. i, { a = function() end })
  end
end)

scenario("a table that shares a subtable at every level", function()
  local t = { 1 }
  for _ = 1, 20 do t = { t, t } end
  -- No target: the params are converted (expanded to a tree) and dropped,
  -- never converted back into Lua, where the state's allocator would see them.
  sb.perform("Nobody", "take", { dag = t })
end)

scenario("registering and unregistering gives the charge back", function()
  local long = string.rep("r", 1 << 20)
  for i = 1, 200 do
    assert(sb.target(long, { a = function() end }))
    assert(sb.unregister(long))
    if i % 20 == 0 then collectgarbage() end
  end
end)

scenario("later scenarios still run", function()
  local t = { 1 }
  for _ = 1, 8 do t = { t, t } end
  sb.target("Sink", { take = function() return true end })
  expect(sb.perform("Sink", "take", { dag = t })).to_be(true)
end)
