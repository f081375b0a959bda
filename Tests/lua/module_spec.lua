local sb = require "switchboard"

describe("the switchboard module", function()
  it("loads in stock lua5.4 and reports the library version", function()
    assert.are.equal("Lua 5.4", _VERSION)
    assert.is_string(sb.version)
    assert.matches("^%d+%.%d+%.%d+$", sb.version)
  end)

  it("has the API the issue names", function()
    for _, name in ipairs { "perform", "target", "unregister", "release", "load_plugin", "poll", "array" } do
      assert.is_function(sb[name], name)
    end
    assert.are.equal("./?.lua", sb.path)
    assert.are.equal("userdata", type(sb.null))
  end)

  it("has the C face's nouns, and keeps the 1.x names as the same functions", function()
    assert.is_function(sb.evict)
    assert.are.equal(sb.evict, sb.release)
    assert.are.equal(sb.url_pattern, sb.route)
    assert.are.equal(sb.remove_url_pattern, sb.unroute)
    sb.target("Nouns", { show = function(p) return p.id end })
    assert.is_true(sb.url_pattern("app://nouns/<int:id>", "Nouns", "show"))
    assert.are.equal(7, sb.open("app://nouns/7"))
    assert.is_true(sb.remove_url_pattern("app://nouns/<int:id>"))
    local _, _, code = sb.evict("Nouns")
    assert.are.equal("ENOTFOUND", code)
    sb.unregister("Nouns")
  end)

  it("creates no globals", function()
    local before = {}
    for k in pairs(_G) do before[k] = true end
    package.loaded.switchboard = nil
    local again = require "switchboard"
    assert.is_table(again)
    for k in pairs(_G) do assert.is_true(before[k], "new global " .. tostring(k)) end
  end)

  it("raises on misuse: wrong argument types and empty names", function()
    assert.has_error(function() sb.perform() end)
    assert.has_error(function() sb.perform("A") end)
    assert.has_error(function() sb.perform("", "x") end)
    assert.has_error(function() sb.perform("A", "") end)
    assert.has_error(function() sb.perform("A\0B", "x") end)
    assert.has_error(function() sb.perform("A", "x", 42) end)
    assert.has_error(function() sb.perform("A", "x", {}, "opts") end)
    assert.has_error(function() sb.target("A") end)
    assert.has_error(function() sb.target("A", {}) end)
    assert.has_error(function() sb.target("A", { x = 1 }) end)
    assert.has_error(function() sb.target("A", { [1] = function() end }) end)
    assert.has_error(function() sb.unregister() end)
    assert.has_error(function() sb.release({}) end)
    assert.has_error(function() sb.load_plugin("") end)
    assert.has_error(function() sb.poll(-1) end)
    assert.has_error(function() sb.array("x") end)
  end)
end)
