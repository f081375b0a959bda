-- A C action that never returns: only the watchdog can end it.
scenario("is stuck in C", function()
  sb.perform("Stuck", "forever")
end)
scenario("never runs", function() end)
