-- Slow C calls (about 20 ms each) inside a coroutine: the watchdog's nudge
-- reaches the main thread only, so the coroutine must see it at its next
-- call (issue 19, hostile review). Run with --timeout 1 --grace 2.
local s = string.rep("a", 3000)
scenario("loops over slow C calls in a coroutine", function()
  coroutine.wrap(function()
    while true do s:find(".-b") end
  end)()
end)
scenario("runs after it", function() end)
