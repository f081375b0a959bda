-- Re-routing at run time: A.charge (module_a.c) fails because the payment
-- service is down; a Lua fallback takes its calls, first through a rule,
-- then through an interceptor that only moves the calls tagged for it.
-- An observer records where each call ended.
--
--   switchboard run --plugin module_a.so --targets targets reroute.lua

local order = { order = "o-17", amount = 42 }

-- The fallback: queues the payment for later instead of charging now.
local function register_fallback()
  sb.target("PayFallback", {
    charge = function(p)
      return { status = "queued", order = p.order, amount = p.amount, by = "PayFallback" }
    end,
  })
end

-- Records the end of every call: target.action and how it ended.
local function record_calls()
  local seen = {}
  sb.observe(function(e)
    if e.phase == "end" then
      seen[#seen + 1] = { call = e.target .. "." .. e.action, code = e.code or "OK" }
    end
  end)
  return seen
end

scenario("a rule sends the failing C charge to a Lua fallback, and back", function()
  local seen = record_calls()

  step("the C action fails", function()
    local result, message, code = sb.perform("A", "charge", order)
    expect(result).to_be_nil()
    expect(code).to_equal("EACTION")
    expect(message).to_contain("payment service down")
  end)

  step("a Lua target and a rule, loaded at run time, answer the same call", function()
    register_fallback()
    expect(sb.rules({ { from = "A/charge", to = "PayFallback/charge" } })).to_be_true()
    expect(sb.perform("A", "charge", order))
      .to_equal({ status = "queued", order = "o-17", amount = 42, by = "PayFallback" })
    -- only charge moved: the rest of A is still the C plugin
    expect(sb.perform("A", "nativeNoImage").image).to_equal("placeholder.png")
  end)

  step("the observer saw the failure, then the redirected call end OK", function()
    expect(seen[1]).to_equal({ call = "A.charge", code = "EACTION" })
    expect(seen[2]).to_equal({ call = "PayFallback.charge", code = "OK" })
  end)

  step("removing the rule brings the failure back", function()
    expect(sb.rules({})).to_be_true()
    expect(sb.perform("A", "charge", order)).to_fail_with("EACTION")
    expect(seen[#seen]).to_equal({ call = "A.charge", code = "EACTION" })
  end)
end)

scenario("an interceptor moves only the calls tagged for the fallback", function()
  register_fallback()
  local seen = record_calls()
  local id = sb.intercept(10, function(call)
    for _, tag in ipairs(call.tags) do
      if tag == "fallback-ok" then return "redirect", "PayFallback", call.action end
    end
  end, { name = "pay-fallback" })
  expect(id).to_be_a("integer")

  step("an untagged call still reaches the broken C action", function()
    expect(sb.perform("A", "charge", order)).to_fail_with("EACTION")
  end)

  step("a tagged call is answered by the Lua fallback", function()
    expect(sb.perform("A", "charge", order, { tags = { "fallback-ok" } }))
      .to_equal({ status = "queued", order = "o-17", amount = 42, by = "PayFallback" })
    expect(seen[#seen]).to_equal({ call = "PayFallback.charge", code = "OK" })
  end)

  step("the interceptor is listed by name, then removed", function()
    local listed = {}
    for _, i in ipairs(sb.routes().interceptors) do listed[#listed + 1] = i.name end
    expect(listed).to_contain("pay-fallback")
    expect(sb.unintercept(id)).to_be_true()
    expect(sb.perform("A", "charge", order, { tags = { "fallback-ok" } })).to_fail_with("EACTION")
    expect(seen[#seen]).to_equal({ call = "A.charge", code = "EACTION" })
  end)
end)
