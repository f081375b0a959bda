local sb = require "switchboard"
local helper = require "helper"

describe("sb.open", function()
  local name
  before_each(function()
    name = helper.name("Url")
    sb.target(name, { show = function(p) return p end, nativeSecret = function() return "leaked" end })
  end)

  it("performs target/action with the decoded query", function()
    local got = sb.open("app://" .. name .. "/show?id=42&tag=a&tag=b&s=%E4%B8%AD")
    assert.are.same({ id = "42", tag = { "a", "b" }, s = "中" }, got)
  end)

  it("takes params beside the URL, which win, and a completion", function()
    local seen
    local got = sb.open("app://" .. name .. "/show?id=url", { id = 7, cb = function() end }, function(info) seen = info end)
    assert.are.equal(7, got.id)
    assert.are.equal("userdata", type(got.cb)) -- a Lua function crossed as a callback and came back callable
    assert.are.same({ result = got }, { result = seen.result })
    sb.open("app://" .. name .. "/show", function(info) seen = info end)
    assert.are.same({ result = {} }, seen)
  end)

  -- Found in a hostile review (issue 20): options of flags alone were
  -- dropped, so {fallback = false} let the fallback answer and {cache = true}
  -- cached nothing, where the same with tags failed or worked.
  it("takes {cache = true} alone, and refuses fallback = false, which is for perform", function()
    sb.load_plugin(helper.counter_plugin)
    sb.release("Counter")
    assert.has_error(function() sb.open("app://Nobody/x", nil, nil, { fallback = false }) end,
      "bad argument #4 to 'open' (fallback = false is for sb.perform and sb.perform_service: a URL call keeps its fallbacks)")
    assert.has_error(function() sb.open("app://Nobody/x", nil, nil, { fallback = false, tags = { "t" } }) end)
    assert.has_error(function() sb.open("app://Nobody/x", nil, function() end, { cache = true }) end)
    assert.are.equal(1, sb.open("app://Counter/next", nil, nil, { cache = true }))
    assert.are.equal(2, sb.open("app://Counter/next", nil, nil, { cache = true }))
    assert.is_true(sb.release("Counter"))
  end)

  it("fails with nil, message, code and tells the completion why", function()
    local seen
    local result, message, code = sb.open("app://" .. name .. "/nativeSecret", function(info) seen = info end)
    assert.is_nil(result)
    assert.are.equal("EREJECTED", code)
    assert.matches("native", message)
    assert.are.equal("EREJECTED", seen.code)
    result, message, code = sb.open("app://" .. name .. "/show?x=%ZZ")
    assert.are.equal("EBADURL", code)
    assert.matches("percent escape", message)
    _, _, code = sb.open("gopher://" .. name .. "/show")
    assert.are.equal("ENOTARGET", code)
  end)

  it("keeps hostile URLs away from target code", function()
    local calls = 0
    local spy = helper.name("Spy")
    sb.target(spy, { nativeSecret = function() calls = calls + 1 end, show = function() calls = calls + 1 end })
    for _, url in ipairs {
      "app://%s/nativeSecret", "app://%s/%%6EativeSecret", "app://%s/NATIVEsecret", "app://%s/../nativeSecret",
      "app://%s//show", "app://%s/show%%00", "app://%s/show?x=%%FF", "app://%s/sh%%ow", "app://user@%s/show",
    } do
      local result = sb.open(url:format(spy))
      assert.is_nil(result, url)
    end
    assert.are.equal(0, calls)
  end)

  it("raises on misuse", function()
    assert.has_error(function() sb.open() end)
    assert.has_error(function() sb.open("app://a/b", 42) end)
    assert.has_error(function() sb.open("app://a/b", {}, "not a function") end)
  end)
end)

describe("sb.scheme, sb.route, sb.policy, sb.on_rejected, sb.routes", function()
  it("connects a scheme to a Lua handler that gets the whole URL", function()
    assert.is_true(sb.scheme("https", function(req) return { url = req.url, path = req.path, q = req.query.q } end))
    assert.are.same({ url = "https://example.com/a/b?q=1", path = { "a", "b" }, q = "1" },
                    sb.open("https://example.com/a/b?q=1"))
    assert.is_true(sb.scheme("https", false))
    local _, _, code = sb.open("https://example.com/")
    assert.are.equal("ENOTARGET", code)
  end)

  it("connects a scheme to targets", function()
    local name = helper.name("Sch")
    sb.target(name, { go = function(p) return p.x end })
    assert.is_true(sb.scheme("mine"))
    assert.are.equal("1", sb.open("mine://" .. name .. "/go?x=1"))
    sb.scheme("mine", false)
  end)

  it("re-routes a URL pattern to a Lua handler at run time, and back", function()
    local name = helper.name("Old")
    sb.target(name, { profile = function(p) return "old " .. p.id end })
    assert.is_true(sb.route("app://user/<int:id>/profile", name, "profile"))
    assert.are.equal("old 7", sb.open("app://user/7/profile"))
    assert.is_true(sb.unroute("app://user/<int:id>/profile"))
    assert.is_true(sb.route("app://user/<int:id>/profile", function(p) return { new = p.id } end))
    assert.are.same({ new = 7 }, sb.open("app://user/7/profile"))
    assert.is_true(sb.unroute("app://user/<int:id>/profile"))
    local ok, _, code = sb.unroute("app://user/<int:id>/profile")
    assert.is_nil(ok)
    assert.are.equal("ENOTFOUND", code)
    local _, message = sb.route("app://bad/<double:x>", name, "profile")
    assert.matches("double", message)
    -- A pattern of the same shape as one in place would tie: refused, naming it.
    assert.is_true(sb.route("app://tie/:a", name, "profile"))
    local ok, tie, code = sb.route("app://tie/:b", function() end)
    assert.is_nil(ok)
    assert.are.equal("EINVAL", code)
    assert.truthy(tie:find('the same URLs as "app://tie/:a"', 1, true), tie)
    assert.is_true(sb.route("app://tie/:a", name, "profile")) -- the same again changes nothing
    assert.is_true(sb.unroute("app://tie/:a"))
  end)

  it("keeps scheme and pattern handlers out of reach of every name", function()
    local calls = 0
    assert.is_true(sb.policy({ schemes = { "app", "https" } }))
    assert.is_true(sb.scheme("https", function(req) calls = calls + 1; return req.url end))
    assert.is_true(sb.route("app://hitem/<int:id>", function(p) calls = calls + 1; return p.id end))
    assert.are.equal("https://e.example/", sb.open("https://e.example/"))
    assert.are.equal(7, sb.open("app://hitem/7"))
    for _, url in ipairs({
      "app://scheme%3Ahttps/open?url=https://evil.example/",
      "app://scheme:https/open",
      "app://route%3Aapp%3A%2F%2Fhitem%2F%3Cint%3Aid%3E/route?id=not-an-int",
      "app://%00route%3Aapp%3A%2F%2Fhitem%2F%3Cint%3Aid%3E/route?id=not-an-int",
    }) do
      local got = sb.open(url)
      assert.are_not.equal("https://evil.example/", got)
      assert.are_not.equal("not-an-int", got)
    end
    sb.perform("scheme:https", "open", { url = "https://evil.example/" })
    sb.perform("route:app://hitem/<int:id>", "route", { id = "not-an-int" })
    assert.has_error(function() sb.perform("\0route:app://hitem/<int:id>", "route", { id = "x" }) end)
    assert.are.equal(2, calls)
    local listed
    for _, p in ipairs(sb.routes().patterns) do if p.pattern == "app://hitem/<int:id>" then listed = p end end
    assert.is_true(listed.handler)
    assert.is_nil(listed.target)
    assert.is_true(sb.unroute("app://hitem/<int:id>"))
    assert.is_true(sb.scheme("https", false))
    assert.is_true(sb.policy(nil))
    local _, _, code = sb.open("app://hitem/7")
    assert.are_not.equal(nil, code)
    assert.are.equal(2, calls)
  end)

  it("refuses a URL over the limit before reading it", function()
    local long = "app://A/x?" .. string.rep("a", 70000) .. "\0"
    local ok, message, code = sb.open(long)
    assert.is_nil(ok)
    assert.are.equal("EBADURL", code)
    assert.matches("the limit is 65535", message)
    ok, message, code = sb.sign_url("a key of sixteen bytes or more", long, 1)
    assert.is_nil(ok)
    assert.are.equal("EINVAL", code)
  end)

  it("requires signed URLs when given a key, and signs them", function()
    local name = helper.name("Signed")
    sb.target(name, { show = function(p) return p end })
    local key = "a key of sixteen bytes or more"
    local url = assert(sb.sign_url(key, "app://" .. name .. "/show?id=7", math.maxinteger))
    assert.truthy(url:find("&expires=" .. math.maxinteger .. "&signature=", 1, true))
    assert.is_true(sb.require_signed_urls(key))
    assert.are.same({ id = "7" }, sb.open(url))
    local v, msg, code = sb.open("app://" .. name .. "/show?id=7")
    assert.is_nil(v)
    assert.are.equal("EREJECTED", code)
    assert.truthy(msg:find("not signed", 1, true))
    v, msg, code = sb.open((url:gsub("id=7", "id=8")))
    assert.are.equal("EREJECTED", code)
    assert.truthy(msg:find("does not match", 1, true))
    v, msg, code = sb.open(assert(sb.sign_url(key, "app://" .. name .. "/show", 1)))
    assert.truthy(msg:find("expired", 1, true))
    -- Misuse: a short key, a fragment, wrong argument types.
    v, msg, code = sb.require_signed_urls("short")
    assert.are.equal("EINVAL", code)
    v, msg = sb.sign_url(key, "app://x/y#frag", 1)
    assert.is_nil(v)
    assert.truthy(msg:find("fragment", 1, true))
    assert.has_error(function() sb.sign_url(key, "app://x/y", "soon") end)
    assert.has_error(function() sb.sign_url(nil, "app://x/y", 1) end)
    assert.is_true(sb.require_signed_urls(nil))
    assert.are.same({ id = "7" }, sb.open("app://" .. name .. "/show?id=7"))
    sb.unregister(name)
  end)

  it("applies a policy and reports refusals to an observer", function()
    local name = helper.name("Pol")
    sb.target(name, { show = function() return "shown" end })
    local refusals = {}
    assert.is_true(sb.on_rejected(function(r) refusals[#refusals + 1] = r end))
    assert.is_true(sb.policy({ targets = { "Nobody" } }))
    local _, _, code = sb.open("app://" .. name .. "/show")
    assert.are.equal("EREJECTED", code)
    assert.are.equal(1, #refusals)
    assert.matches(name, refusals[1].reason)
    assert.is_true(sb.policy(nil))
    assert.are.equal("shown", sb.open("app://" .. name .. "/show"))
    assert.is_true(sb.on_rejected(nil))
    local _, _, code2 = sb.policy({ schemes = "app" })
    assert.are.equal("ETYPE", code2)
  end)

  it("lists targets, schemes and patterns", function()
    local name = helper.name("Listed")
    sb.target(name, { a = function() end, b = function() end })
    sb.route("app://listed/:x", name, "a")
    local routes = sb.routes()
    local found
    for _, t in ipairs(routes.targets) do if t.name == name then found = t end end
    assert.are.same({ "a", "b" }, found.actions)
    local patterns = {}
    for _, p in ipairs(routes.patterns) do patterns[p.pattern] = p.target end
    assert.are.equal(name, patterns["app://listed/:x"])
    assert.is_table(routes.schemes)
    sb.unroute("app://listed/:x")
  end)
end)
