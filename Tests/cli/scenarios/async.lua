-- Scenarios that wait for actions that answer later (issue 21): each body
-- runs in a coroutine the runner resumes. Run with --timeout 2.
local kept = {}
sb.target("Later", {
  never = function() return sb.later(function(complete) kept[#kept + 1] = complete end) end,
  soon = function(p)
    return sb.later(function(complete)
      coroutine.wrap(function()
        local file = sb.perform("Net", "download", { url = p.url, ms = 10 })
        complete(file.url)
      end)()
    end)
  end,
})

scenario("a call that never ends is stopped by the timeout", function()
  sb.perform("Later", "never")
end)

scenario("a body that yields by itself is an error", function()
  coroutine.yield("nobody resumes this")
end)

scenario("an error raised after an asynchronous call names its line", function()
  sb.perform("Net", "download", { url = "x", ms = 5 })
  error("raised after the call")
end)

scenario("steps, pcall and xpcall wait inside", function()
  step("in a step", function()
    expect(sb.perform("Later", "soon", { url = "step" })).to_equal("step")
  end)
  local ok, v = pcall(sb.perform, "Later", "soon", { url = "pcall" })
  expect(ok).to_be_true()
  expect(v).to_equal("pcall")
  local ok2, v2 = xpcall(sb.perform, debug.traceback, "Later", "soon", { url = "xpcall" })
  expect(ok2).to_be_true()
  expect(v2).to_equal("xpcall")
end)

scenario("an expectation that fails after an asynchronous call fails the scenario", function()
  expect(sb.perform("Net", "download", { url = "y", ms = 5 }).url).to_equal("z")
end)

scenario("later scenarios still run", function()
  expect(sb.perform("Net", "download", { url = "last", ms = 1 }).url).to_equal("last")
end)
