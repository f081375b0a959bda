-- The Lua face's nouns are the C face's (issue 39 item 7): sb.evict, and
-- sb.url_pattern / sb.remove_url_pattern; 1.0's sb.release, sb.route and
-- sb.unroute still do the same, and status names are the library's.
local sb = require "switchboard"
local helper = require "helper"

describe("the C face's nouns", function()
  it("sb.evict drops a cached instance, and says ENOTFOUND when none is cached; sb.release does the same", function()
    sb.load_plugin(helper.counter_plugin)
    sb.evict("Tally")
    assert.are.equal(1, sb.perform("Tally", "next", nil, { cache = true }))
    assert.are.equal(2, sb.perform("Tally", "next"))
    assert.is_true(sb.evict("Tally"))
    assert.are.equal(1, sb.perform("Tally", "next", nil, { cache = true }))
    local ok, message, code = sb.evict(helper.name("Never"))
    assert.is_nil(ok)
    assert.are.equal("ENOTFOUND", code)
    assert.is_string(message)
    -- the old name, on an instance the new one made
    assert.is_true(sb.release("Tally"))
    _, _, code = sb.release("Tally")
    assert.are.equal("ENOTFOUND", code)
    assert.has_error(function() sb.evict({}) end)
    assert.has_error(function() sb.evict("") end)
    assert.has_error(function() sb.evict("a\0b") end)
  end)

  it("sb.url_pattern and sb.remove_url_pattern are one with sb.route and sb.unroute", function()
    local target = helper.name("Pages")
    sb.target(target, { user = function(p) return p.id end })
    local pattern = "nouns://" .. target:lower() .. "/<int:id>"
    assert.is_true(sb.url_pattern(pattern, target, "user"))
    assert.are.equal(7, sb.open("nouns://" .. target:lower() .. "/7"))
    -- the same shape again is refused, whichever name adds it
    local _, _, code = sb.route("nouns://" .. target:lower() .. "/<int:n>", target, "user")
    assert.are.equal("EINVAL", code)
    assert.is_true(sb.unroute(pattern))
    _, _, code = sb.remove_url_pattern(pattern)
    assert.are.equal("ENOTFOUND", code)
    assert.is_true(sb.route(pattern, function(p) return p.id * 2 end))
    assert.are.equal(14, sb.open("nouns://" .. target:lower() .. "/7"))
    assert.is_true(sb.remove_url_pattern(pattern))
    assert.has_error(function() sb.url_pattern("") end)
    assert.has_error(function() sb.remove_url_pattern(nil) end)
    sb.unregister(target)
  end)

  it("a Lua failure's code is read by the library's status names; an unknown one is EACTION", function()
    local target = helper.name("Codes")
    local codes = { "EINVAL", "ENOTARGET", "ENOACTION", "EACTION", "ETYPE", "EREJECTED", "EBADURL", "ENOMEM",
                    "EQUEUED", "ETIMEOUT", "ECANCELED", "EPARAMS", "EWOULDBLOCK", "ENOTFOUND" }
    sb.target(target, { fail = function(p) return nil, "failed on purpose", p.code end })
    for _, name in ipairs(codes) do
      local ok, _, code = sb.perform(target, "fail", { code = name })
      assert.is_nil(ok)
      assert.are.equal(name, code)
    end
    for _, name in ipairs({ "EUNKNOWN", "EBOGUS", "OK", "PENDING", "" }) do
      local _, _, code = sb.perform(target, "fail", { code = name })
      assert.are.equal("EACTION", code, name)
    end
    sb.unregister(target)
  end)
end)
