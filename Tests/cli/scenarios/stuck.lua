-- A C action that never returns: only the watchdog can end it (the
-- scenario's process, past --timeout and --grace).
scenario("is stuck in C", function()
  sb.perform("Stuck", "forever")
end)
scenario("runs after it", function() end)
