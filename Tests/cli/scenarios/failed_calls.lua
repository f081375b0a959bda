-- Every matcher given the `nil, message, code` of a failed call says why the
-- call failed; an action that answers nothing succeeds with sb.null.
local function message_of(fn)
  local ok, err = pcall(fn)
  assert(not ok, "the expectation should not have held")
  return err.message
end

scenario("matchers name the failed call's message and code", function()
  local why = 'the call failed: no target named "Nobody" ENOTARGET'
  expect(message_of(function() expect(sb.perform("Nobody", "x")).to_equal({ a = 1 }) end))
    .to_equal('expected {a = 1}, got nil (' .. why .. ')')
  expect(message_of(function() expect(sb.perform("Nobody", "x")).to_exist() end))
    .to_equal('expected a value, got nil (' .. why .. ')')
  expect(message_of(function() expect(sb.perform("Nobody", "x")).to_be_truthy() end))
    .to_equal('expected a truthy value, got nil (' .. why .. ')')
  expect(message_of(function() expect(sb.perform("Nobody", "x")).to_contain("x") end))
    .to_equal('expected a table or string to look in, got nil (' .. why .. ')')
  expect(message_of(function() expect(sb.perform("Nobody", "x")).to_be_a("table") end))
    .to_equal('expected a table, got nil (a nil) (' .. why .. ')')
  -- a value that is not a failed call gets no such note (a nil given
  -- alone stands for the last call's failure: one that succeeded ends that)
  sb.target("Fine", { ok = function() return 1 end })
  assert(sb.perform("Fine", "ok"))
  expect(message_of(function() expect(nil).to_equal({ a = 1 }) end)).to_equal("expected {a = 1}, got nil")
  expect(message_of(function() expect(1).to_be_a("string") end)).to_equal("expected a string, got 1 (an integer)")
end)

scenario("an action that answers nothing succeeds with sb.null", function()
  sb.target("Quiet", { write = function() end, echo = function(p) return p.v end })
  assert(sb.perform("Quiet", "write"))
  expect(sb.perform("Quiet", "write")).to_be(sb.null)
  expect(sb.perform("Quiet", "write")).to_succeed()
  expect(sb.perform("Quiet", "echo", { v = sb.null })).to_equal(sb.null)
  expect(message_of(function() expect(sb.perform("Quiet", "write")).to_equal(1) end)).to_equal("expected 1, got sb.null")
end)

scenario("the closest names are suggested", function()
  sb.target("Catalog", { item = function() return 1 end })
  local _, message, code = sb.perform("Catalgo", "item")
  expect(code).to_equal("ENOTARGET")
  expect(message).to_contain('(did you mean "Catalog"?)')
  _, message, code = sb.perform("Catalog", "itme")
  expect(code).to_equal("ENOACTION")
  expect(message).to_contain('(did you mean "item"?)')
end)

scenario("an error's traceback shows the script's frames, not the API's, and not the message again", function()
  step("outer", function()
    step("inner", function()
      local t = nil
      return t.field
    end)
  end)
end)
