local sb = require "switchboard"
local helper = require "helper"

-- Target_<Name>.lua files that return a constructor (Tests/lua/targets):
-- instances made, cached and released as for a C or Swift target.
describe("a Target_<Name>.lua file that returns a constructor", function()
  local saved
  before_each(function()
    saved = sb.path
    sb.path = helper.targets .. "/?.lua"
  end)
  after_each(function()
    sb.unregister("Tallies")
    sb.path = saved
  end)

  it("makes a fresh instance for each uncached call", function()
    assert.are.equal(1, sb.perform("Tallies", "bump"))
    assert.are.equal(1, sb.perform("Tallies", "bump"))
    assert.are.equal(5, sb.perform("Tallies", "add", { by = 5 }))
  end)

  it("keeps a cached instance until sb.release, then starts afresh", function()
    assert.are.equal(1, sb.perform("Tallies", "bump", nil, { cache = true }))
    assert.are.equal(2, sb.perform("Tallies", "bump", nil, { cache = true }))
    -- an uncached call uses the cached instance, as for C and Swift targets
    assert.are.equal(3, sb.perform("Tallies", "bump"))
    sb.release("Tallies")
    assert.are.equal(1, sb.perform("Tallies", "bump", nil, { cache = true }))
    sb.release("Tallies")
    assert.are.equal(1, sb.perform("Tallies", "bump"))
  end)

  it("runs the constructor once to learn its actions, then once per instance", function()
    sb.perform("Tallies", "bump")
    local made = _G.__tallies_made
    sb.perform("Tallies", "bump")
    sb.perform("Tallies", "bump")
    assert.are.equal(made + 2, _G.__tallies_made)
    local cached = _G.__tallies_made
    sb.perform("Tallies", "bump", nil, { cache = true })
    sb.perform("Tallies", "bump", nil, { cache = true })
    assert.are.equal(cached + 1, _G.__tallies_made)
  end)

  it("is a target class in the catalogue: its file, its actions, their contracts, whether cached", function()
    sb.perform("Tallies", "bump", nil, { cache = true })
    local found
    for _, t in ipairs(sb.routes().targets) do
      if t.name == "Tallies" then found = t end
    end
    assert.are.equal("Lua file " .. helper.targets .. "/Target_Tallies.lua", found.origin)
    assert.are.same({ "add", "bump" }, found.actions)
    assert.is_true(found.cached)
    assert.is_not_nil(found.contracts.add)
  end)

  it("checks the contracts of its actions", function()
    local result, message, code = sb.perform("Tallies", "add", { by = "five" })
    assert.is_nil(result)
    assert.are.equal("EPARAMS", code)
    assert.matches("by", message)
  end)

  it("is loaded again after sb.unregister, its cached instance gone with it", function()
    assert.are.equal(1, sb.perform("Tallies", "bump", nil, { cache = true }))
    assert.are.equal(2, sb.perform("Tallies", "bump", nil, { cache = true }))
    sb.unregister("Tallies")
    assert.are.equal(1, sb.perform("Tallies", "bump", nil, { cache = true }))
  end)

  it("is reachable from C: a plugin performs it, with an instance each time", function()
    sb.load_plugin(helper.plugin)
    local function bump()
      return sb.perform("Bridge", "perform", { target = "Tallies", action = "bump" })
    end
    assert.are.equal(1, bump())
    assert.are.equal(1, bump())
  end)

  it("reports a constructor that raises or returns no table, naming the file", function()
    local result, message, code = sb.perform("CtorRaises", "x")
    assert.is_nil(result)
    assert.are.equal("EACTION", code)
    assert.matches("constructor of .*Target_CtorRaises.lua raised an error", message)
    assert.matches("no instance today", message)
    result, message, code = sb.perform("CtorNotATable", "x")
    assert.is_nil(result)
    assert.are.equal("EACTION", code)
    assert.matches("constructor of .*Target_CtorNotATable.lua returned a number, not a table of actions", message)
  end)

  it("fails a call whose instance cannot be made, with the constructor's message", function()
    _G.__later_mode = "raise"
    local result, message, code = sb.perform("CtorFailsLater", "x")
    assert.is_nil(result)
    assert.are.equal("EACTION", code)
    assert.matches("constructor of .*Target_CtorFailsLater.lua raised an error", message)
    assert.matches("out of instances", message)
    _G.__later_mode = "string"
    result, message, code = sb.perform("CtorFailsLater", "x", nil, { cache = true })
    assert.is_nil(result)
    assert.are.equal("EACTION", code)
    assert.matches("returned a string, not a table of actions", message)
    sb.unregister("CtorFailsLater")
  end)

  it("refuses to make an instance on another thread, rather than run Lua there", function()
    assert.are.equal(1, sb.perform("Tallies", "bump")) -- loaded on this thread
    sb.load_plugin(helper.plugin)
    assert.is_true(sb.perform("Threads", "performLater", { target = "Tallies", action = "bump" }))
    assert.are.equal("EREJECTED", sb.perform("Threads", "join"))
  end)

  it("keeps the table form's meaning: one table, loaded once, nothing to release", function()
    sb.unregister("Files")
    local first = sb.perform("Files", "loads")
    sb.perform("Files", "hello", {}, { cache = true })
    sb.release("Files")
    assert.are.equal(first, sb.perform("Files", "loads"))
  end)
end)
