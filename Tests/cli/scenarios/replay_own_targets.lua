-- Targets and functions the script registers, which the build calls
-- (replay: test_06_steps.sh). A replay stands in for each with what it was
-- given and answered when recorded.
local Tax = { rate = function(p) return { rate = p.country == "FR" and 20 or 10 } end }
sb.target("Tax", Tax) -- at the top level: every scenario starts with it

scenario("a build target calls the script's target", function()
  expect(sb.perform("Price", "quote", { net = 100, country = "FR" })).to_equal({ total = 120 })
  expect(sb.perform("Price", "quote", { net = 50, country = "DE" })).to_equal({ total = 55 })
end)

scenario("the fallback, a URL pattern and a callback are the script's", function()
  sb.target("NoTargetAction", { response = function(p) return { missing = p.target } end })
  expect(sb.perform("Gone", "x")).to_equal({ missing = "Gone" })
  sb.target("Profile", { show = function(p) return { user = p.id } end })
  expect(sb.url_pattern("app://user/<int:id>", "Profile", "show")).to_be_true()
  expect(sb.open("app://user/7")).to_equal({ user = 7 })
  local tapped = 0
  expect(sb.perform("A", "showAlert", { message = "Sure?", answer = "confirm",
                                        confirmAction = function() tapped = tapped + 1 return "ok" end }))
    .to_equal("ok")
  expect(tapped).to_equal(1)
end)

scenario("an action of the script's answers later", function()
  sb.target("Dialog", {
    ask = function(p)
      return sb.later(function(complete)
        coroutine.wrap(function()
          complete({ answer = sb.perform("Net", "download", { url = p.q, ms = 5 }).url })
        end)()
      end)
    end,
  })
  expect(sb.perform("Dialog", "ask", { q = "Save?" })).to_equal({ answer = "Save?" })
end)

scenario("an interceptor of the script's, unnamed, decides later", function()
  sb.intercept(0, function(call, complete)
    if call.target == "A" then complete("answer", { by = call.interceptor }) end
  end, { async = true })
  expect(sb.perform("A", "nativeNoImage").by).to_match("^Lua interceptor %d+$")
end)
