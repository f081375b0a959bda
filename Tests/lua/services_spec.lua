local sb = require "switchboard"
local helper = require "helper"

-- Named services: an interface (action names with contracts) callers ask
-- for by its name, bound to a conforming target.
describe("sb.service", function()
  local payments = [[
    -- what a payment provider answers
    charge(cents: int -> bool)
    status
  ]]

  local function provider(name, ok)
    sb.target(name, {
      charge = { params = "cents: int", result = "bool", fn = function(p) return ok and p.cents > 0 end },
      status = function() return name end,
    })
  end

  it("performs through the bound target, and switches at once when rebound", function()
    local service = helper.name("Payments")
    local a, b = helper.name("A"), helper.name("B")
    provider(a, true)
    provider(b, false)
    assert.is_true(sb.service(service, payments))
    local result, message, code = sb.perform_service(service, "status")
    assert.is_nil(result)
    assert.are.equal("ENOTARGET", code)
    assert.matches("not bound", message)
    assert.is_true(sb.bind_service(service, a))
    assert.are.equal(a, sb.perform_service(service, "status"))
    assert.is_true(sb.perform_service(service, "charge", { cents = 300 }))
    assert.is_true(sb.bind_service(service, b))
    assert.are.equal(b, sb.perform_service(service, "status"))
    assert.is_false(sb.perform_service(service, "charge", { cents = 300 }))
    -- the target's contract is checked as sb.perform checks it
    _, _, code = sb.perform_service(service, "charge", { cents = "300" })
    assert.are.equal("EPARAMS", code)
    -- an action the interface does not declare
    _, message, code = sb.perform_service(service, "refund")
    assert.are.equal("ENOACTION", code)
    assert.matches("charge, status", message)
    assert.is_true(sb.bind_service(service, nil))
    _, _, code = sb.perform_service(service, "status")
    assert.are.equal("ENOTARGET", code)
    assert.is_true(sb.remove_service(service))
    _, _, code = sb.remove_service(service)
    assert.are.equal("ENOTFOUND", code)
    _, _, code = sb.perform_service(service, "status")
    assert.are.equal("ENOTFOUND", code) -- no such service: a lookup, not a call's missing target
  end)

  it("refuses a target that does not conform, naming what is missing", function()
    local service = helper.name("Payments")
    local half = helper.name("Half")
    sb.target(half, { charge = { params = "cents: string", result = "bool", fn = function() return true end } })
    sb.service(service, payments)
    local ok, message, code = sb.bind_service(service, half)
    assert.is_nil(ok)
    assert.are.equal("ETYPE", code) -- the target is not of the interface's kind
    assert.matches("status is missing", message)
    assert.matches('param "cents" is string on the target, int in the interface', message)
    _, _, code = sb.bind_service(service, helper.name("Nobody"))
    assert.are.equal("ENOTFOUND", code)
    _, _, code = sb.bind_service(helper.name("NoService"), half)
    assert.are.equal("ENOTFOUND", code)
    _, message, code = sb.service(helper.name("S"), "a\na")
    assert.are.equal("EINVAL", code)
    assert.matches("declared twice", message)
  end)

  it("binds a Target_<Name>.lua file found on sb.path, with its instances", function()
    local saved = sb.path
    sb.path = helper.targets .. "/?.lua"
    sb.unregister("Tallies")
    local service = helper.name("Counting")
    sb.service(service, "bump\nadd(by: int -> int)")
    assert.is_true(sb.bind_service(service, "Tallies"))
    assert.are.equal(1, sb.perform_service(service, "bump"))
    assert.are.equal(1, sb.perform_service(service, "bump", nil, { cache = true }))
    assert.are.equal(2, sb.perform_service(service, "bump", nil, { cache = true }))
    sb.release("Tallies")
    sb.unregister("Tallies")
    sb.path = saved
  end)

  it("is listed in sb.routes().services with its binding", function()
    local service = helper.name("Listed")
    local target = helper.name("T")
    provider(target, true)
    sb.service(service, payments)
    sb.bind_service(service, target)
    local found
    for _, s in ipairs(sb.routes().services) do
      if s.name == service then found = s end
    end
    assert.are.equal("interface", found.kind)
    assert.are.equal(target, found.target)
    assert.are.same({ "charge", "status" }, found.actions)
  end)

  -- Found in a hostile review (issue 20): the interface was checked only
  -- when the target was bound.
  it("holds its interface at the call, whatever the binding points to now", function()
    local service = helper.name("Quotes")
    local q = helper.name("Q")
    sb.service(service, 'quote(cents: int, currency: string = "EUR" -> string)')
    sb.target(q, { quote = { params = "cents: int, currency: string?", result = "string",
                             fn = function(p) return p.currency or "none" end } })
    sb.target("Other." .. q, { quote = function() return "other" end })
    assert.is_true(sb.bind_service(service, q))
    -- the interface's default, and its required param
    assert.are.equal("EUR", sb.perform_service(service, "quote", { cents = 1 }))
    local result, message, code = sb.perform_service(service, "quote")
    assert.is_nil(result)
    assert.are.equal("EPARAMS", code)
    assert.matches("service " .. service .. ".quote", message, 1, true)
    -- the binding alone picks the target: a module key is only a param
    assert.are.equal("USD", sb.perform_service(service, "quote",
      { cents = 1, currency = "USD", ["switchboard.module"] = "Other" }))
    -- replaced by a target that breaks the interface
    sb.unregister(q)
    sb.target(q, { quote = function() return 42 end })
    result, message, code = sb.perform_service(service, "quote", { cents = 1 })
    assert.is_nil(result)
    assert.are.equal("ETYPE", code)
    assert.are.equal("service " .. service .. ".quote: expected a string result, got int", message)
    -- gone, and a fallback answers: held to the interface too; or none answers
    sb.unregister(q)
    sb.target("NoTargetAction", { response = function(p) return p end })
    _, _, code = sb.perform_service(service, "quote", { cents = 1 })
    assert.are.equal("ETYPE", code)
    _, _, code = sb.perform_service(service, "quote", { cents = 1 }, { fallback = false })
    assert.are.equal("ENOTARGET", code)
    sb.unregister("NoTargetAction")
    sb.unregister("Other." .. q)
    sb.remove_service(service)
  end)

  it("raises on misuse", function()
    assert.has_error(function() sb.service("", "a") end)
    assert.has_error(function() sb.service("S", {}) end)
    assert.has_error(function() sb.perform_service("S", "a", 42) end)
    assert.has_error(function() sb.perform_service("S", "a", nil, { bypass = true }) end)
  end)
end)
