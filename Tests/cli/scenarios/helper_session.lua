-- A plugin starts a helper process in a session of its own at the top level
-- (SB_PROCESS_PLUGIN, Tests/cli/plugins/process.c): it is the runner's, not
-- a scenario's leftover, and lives on while the scenarios run.
assert(sb.load_plugin(assert(os.getenv("SB_PROCESS_PLUGIN"))))
helper = sb.perform("Process", "leave_session")

scenario("starts and ends a process of its own", function() os.execute("sleep 0.1") end)
scenario("finds the top level's helper alive", function()
  local stat = assert(io.open("/proc/" .. helper .. "/stat"), "the helper is gone"):read("l")
  expect(stat:match("%) (%a)")).to_not_equal("Z")
  print("helper " .. helper)
end)
