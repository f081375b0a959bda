-- The top level makes a call with a timeout that waits for an action that
-- answers later (Typed.later, Tests/c/plugins/typed_plugin.c): the library
-- starts its watch thread ("sb-watch"). With $SB_PENDING the call is left
-- waiting, so the watch is busy when scenarios would fork.
-- The runner ran this top level once before, to list the scenarios, in a
-- state now closed: closing it gave that call up, but Typed still holds its
-- completion, and takes one call at a time. End it first (the listing's own
-- run finds none), so that this run's call is the one left waiting.
sb.perform("Typed", "finishLater")
local waits = coroutine.wrap(function() return sb.perform("Typed", "later", { n = 1 }, { timeout = 60 }) end)
waits()
if not os.getenv("SB_PENDING") then
  sb.perform("Typed", "finishLater")
  sb.poll()
end
for i = 1, 2 do
  scenario("runs in a process of its own " .. i, function()
    print("pid " .. io.open("/proc/self/stat"):read("l"):match("^%d+"))
  end)
end
