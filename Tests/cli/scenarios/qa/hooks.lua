-- Hooks: before_all once, before_each/after_each around each scenario in
-- its own process (what one scenario changes the next does not see).
local log = {}
local shared = {}
before_all(function() shared.ready = true; print("before_all ran") end)
before_each(function() log[#log + 1] = "before"; shared.count = (shared.count or 0) + 1 end)
after_each(function() log[#log + 1] = "after"; if shared.fail_after then expect("after_each").to_equal("ok") end end)
after_all(function() print("after_all ran") end)
scenario("sees before_all and before_each", function()
  expect(shared.ready).to_be(true)
  expect(log).to_equal({ "before" })
  expect(shared.count).to_equal(1)
end)
scenario("gets a fresh copy", function()
  expect(shared.count).to_equal(1)
  shared.fail_after = true
end)
scenario("a helper beside the script", function()
  local helper = require("qa_helper")
  expect(helper.double(21)).to_equal(42)
end)
