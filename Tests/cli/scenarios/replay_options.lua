-- Calls whose options change their answers (replay: test_06_steps.sh). A
-- replay that made them without their options would see other answers.
scenario("a timeout", function()
  expect(sb.perform("Net", "download", { url = "slow://", ms = 2000 }, { timeout = 0.05 })).to_fail_with("ETIMEOUT")
end)

scenario("a cached instance, evicted", function()
  expect(sb.perform("A", "cell", { identifier = "R" }, { cache = true }).cell).to_equal("cell 1")
  expect(sb.perform("A", "cell", { identifier = "R" }, { cache = true }).cell).to_equal("cell 2")
  expect(sb.evict("A")).to_be_true()
  expect(sb.perform("A", "cell", { identifier = "R" }, { cache = true }).cell).to_equal("cell 1")
end)

scenario("no fallback", function()
  sb.target("NoTargetAction", { response = function() return "fell back" end })
  expect(sb.perform("Missing", "x")).to_equal("fell back")
  expect(sb.perform("Missing", "x", nil, { fallback = false })).to_fail_with("ENOTARGET")
end)

scenario("tags an interceptor reads, and bypass", function()
  sb.intercept(0, function(call)
    if call.tags[1] == "refuse" then return "reject", "refused by tag" end
  end, { name = "by-tag" })
  expect(sb.perform("A", "nativeNoImage", nil, { tags = { "refuse" } })).to_fail_with("EREJECTED")
  expect(sb.perform("A", "nativeNoImage", nil, { tags = { "refuse" }, bypass = true }).image).to_equal("placeholder.png")
end)

scenario("a cancelled token", function()
  local token = sb.cancellation()
  token:cancel()
  expect(sb.perform("A", "nativeNoImage", nil, { cancel = token })).to_fail_with("ECANCELED")
end)

scenario("an asynchronous call with a function for its answer", function()
  local got
  expect(sb.perform_async("Net", "download", { url = "async", ms = 5 }, function(file) got = file.url end)).to_be_true()
  for _ = 1, 200 do -- each call suspends the scenario; the runner polls meanwhile
    if got then break end
    sb.perform("Net", "download", { url = "tick", ms = 5 })
  end
  expect(got).to_equal("async")
end)
