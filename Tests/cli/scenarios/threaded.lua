-- A thread started at the top level (by a plugin) makes forking unsafe: a
-- forked copy would hold only the forking thread, and any lock another held
-- would stay taken. Each scenario then runs the old way, in the runner's own
-- process, in a fresh state where the top level runs again; isolation holds
-- all the same. Run with --allow-os and SB_PROCESS_PLUGIN (see processes.lua).
local plugin = assert(os.getenv("SB_PROCESS_PLUGIN"), "set SB_PROCESS_PLUGIN")
assert(sb.load_plugin(plugin))
assert(sb.perform("Process", "start_thread"))

scenario("leaves a global and a target behind", function()
  leaked_global = true
  sb.target("Temp", { hello = function() return "temp" end })
  print("pid " .. sb.perform("Process", "pid"))
end)

scenario("sees neither", function()
  expect(leaked_global).to_be_nil()
  expect(sb.perform("Temp", "hello")).to_fail_with("ENOTARGET")
  print("pid " .. sb.perform("Process", "pid"))
end)
