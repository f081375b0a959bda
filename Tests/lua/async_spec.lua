local sb = require "switchboard"
local helper = require "helper"

-- Asynchronous C actions called from Lua (issue 21, first part): the call
-- waits on the calling thread, up to the timeout option.
describe("an asynchronous C action", function()
  sb.load_plugin(helper.plugin)

  it("answers sb.perform when it completes", function()
    assert.are.equal("late", sb.perform("Later", "after", { ms = 20, value = "late" }))
    assert.are.equal("ok", sb.perform("Later", "join"))
  end)

  it("fails with ETIMEOUT past the timeout option, and its completion is refused", function()
    local result, message, code = sb.perform("Later", "after", { ms = 300, value = 1 }, { timeout = 0.03 })
    assert.is_nil(result)
    assert.are.equal("ETIMEOUT", code)
    assert.truthy(message:find("Later.after did not complete", 1, true))
    assert.are.equal("timed out", sb.perform("Later", "join"))
  end)

  it("fails with ECANCELED when its token is cancelled before", function()
    local token = sb.cancellation()
    token:cancel()
    local _, _, code = sb.perform("Later", "after", { ms = 1 }, { cancel = token })
    assert.are.equal("ECANCELED", code)
  end)

  it("checks the timeout option", function()
    assert.has_error(function() sb.perform("Later", "after", { ms = 1 }, { timeout = "1" }) end)
    assert.has_error(function() sb.perform("Later", "after", { ms = 1 }, { timeout = 0 }) end)
    assert.has_error(function() sb.perform("Later", "after", { ms = 1 }, { timeout = -1 }) end)
    assert.has_error(function() sb.perform("Later", "after", { ms = 1 }, { timeout = 1e12 }) end)
  end)
end)
