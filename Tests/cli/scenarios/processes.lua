-- Each scenario runs in a process of its own, a copy of the state the top
-- level left: nothing one scenario does reaches the next, not even a crash.
-- Run with --allow-os (sb.load_plugin) and SB_PROCESS_PLUGIN set to
-- Tests/cli/plugins/process.c built as a plugin.
local plugin = assert(os.getenv("SB_PROCESS_PLUGIN"), "set SB_PROCESS_PLUGIN")
from_the_top_level = "as the top level left it"
sb.target("TopLevel", { hello = function() return "hello" end })

scenario("changes everything it can reach", function()
  leaked_global = true
  from_the_top_level = "changed"
  string.leaked = true
  sb.target("Temp", { hello = function() return "temp" end })
  sb.route("app://temp/<x>", "Temp", "hello")
  expect(sb.unregister("TopLevel")).to_be_true()
  expect(sb.load_plugin(plugin)).to_be_true()
  expect(sb.perform("Process", "bump")).to_equal(1)
  expect(sb.perform("Process", "bump")).to_equal(2)
  print("pid " .. sb.perform("Process", "pid"))
  sb.intercept(1, function() return "reject", "intercepted" end)
  expect(sb.perform("Temp", "hello")).to_fail_with("EREJECTED")
end)

scenario("sees none of it", function()
  expect(leaked_global).to_be_nil()
  expect(from_the_top_level).to_equal("as the top level left it")
  expect(string.leaked).to_be_nil()
  expect(sb.perform("Temp", "hello")).to_fail_with("ENOTARGET")
  expect(sb.open("app://temp/1")).to_fail_with()
  expect(sb.perform("TopLevel", "hello")).to_equal("hello") -- registered, and no interceptor
  expect(sb.perform("Process", "bump")).to_fail_with("ENOTARGET")
  -- loaded again, the plugin starts from its first state
  expect(sb.load_plugin(plugin)).to_be_true()
  expect(sb.perform("Process", "bump")).to_equal(1)
  print("pid " .. sb.perform("Process", "pid"))
end)

scenario("crashes its process", function()
  assert(sb.load_plugin(plugin))
  print("about to crash")
  sb.perform("Process", "crash")
end)

scenario("exits its process", function()
  os.exit(7)
end)

scenario("runs after the crash and the exit", function()
  expect(from_the_top_level).to_equal("as the top level left it")
  expect(sb.perform("TopLevel", "hello")).to_equal("hello")
end)
