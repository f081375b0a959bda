-- Metatables the module makes are locked when they are made (issue 19,
-- item 10): a script that reached one could give it a __gc, which the
-- module's own lua_setmetatable would then register; Lua runs finalizers
-- with hooks off, so a looping one stopped the whole run (exit 3). Each
-- scenario tries the attack first, then checks the lock.
local function loop() while true do end end

scenario("sb.array's marker metatable is locked", function()
  local mt = getmetatable(sb.array({}))
  pcall(function() mt.__gc = loop end)
  for _ = 1, 10 do sb.array({}) end
  collectgarbage()
  collectgarbage()
  expect(mt).to_be("switchboard.array")
end)

scenario("arrays that come back from a call carry the same locked metatable", function()
  sb.target("Echo", { back = function(p) return p end })
  local back = sb.perform("Echo", "back", { list = { 1, 2 } })
  local mt = getmetatable(back.list)
  pcall(function() mt.__gc = loop end)
  collectgarbage()
  expect(mt).to_be("switchboard.array")
end)

scenario("the cancellation token's metatable is locked (made lazily)", function()
  local mt = getmetatable(sb.cancellation())
  pcall(function() mt.__gc = loop end)
  for _ = 1, 10 do sb.cancellation() end
  collectgarbage()
  collectgarbage()
  expect(mt).to_be("switchboard.cancellation")
end)

scenario("later scenarios still run", function()
  expect(1 + 1).to_be(2)
end)
