-- Scenarios that wait for actions that answer later (module_a's Net.download
-- answers from a thread of its own; a Lua action answers with sb.later):
--
--   switchboard run --plugin module_a.so --targets targets async.lua
--
-- The runner runs each scenario in a coroutine: sb.perform of an action
-- that answers later suspends it, and the runner waits (on sb.fd()) and
-- polls until the answer comes, within the scenario's --timeout.

scenario("a C action answers from a worker thread", function()
  local file = sb.perform("Net", "download", { url = "https://example.com/logo.png", ms = 30 })
  expect(file).to_equal({ url = "https://example.com/logo.png", bytes = 28000 })
end)

scenario("a call that waits longer than its timeout fails with ETIMEOUT", function()
  expect(sb.perform("Net", "download", { url = "slow://", ms = 2000 }, { timeout = 0.05 })).to_fail_with("ETIMEOUT")
end)

scenario("downloads started together are answered in the order they finish", function()
  local finished = {}
  local function fetch(url, ms)
    -- each in a coroutine of its own: none waits for the others
    coroutine.wrap(function()
      local file = sb.perform("Net", "download", { url = url, ms = ms })
      finished[#finished + 1] = file.url
    end)()
  end
  fetch("big", 100)
  fetch("small", 10)
  -- the scenario itself waits for a third, longer than both
  sb.perform("Net", "download", { url = "last", ms = 400 })
  expect(finished).to_equal({ "small", "big" })
end)

scenario("a Lua action answers later with sb.later", function()
  -- A dialog that answers when the user taps, which here is when a
  -- download it waits for (in a coroutine of its own) is done.
  sb.target("Dialog", {
    ask = function(params)
      return sb.later(function(complete)
        coroutine.wrap(function()
          local file = sb.perform("Net", "download", { url = params.question, ms = 20 })
          complete({ answer = "yes", after = file.url })
        end)()
      end)
    end,
  })
  step("a coroutine's call waits for the answer", function()
    expect(sb.perform("Dialog", "ask", { question = "Save?" })).to_equal({ answer = "yes", after = "Save?" })
  end)
end)
