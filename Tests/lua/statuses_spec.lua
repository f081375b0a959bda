-- The codes of `nil, message, code` are the C header's sb_status names, one
-- to one: every status the header defines travels through the Lua face under
-- its own name, and the module spells no code the header lacks.
local sb = require "switchboard"
local helper = require "helper"

-- {name = value} of sb_status in the staged header, e.g. ENOTFOUND = 14.
local function header_statuses()
  local f = assert(io.open(helper.header))
  local text = f:read("a")
  f:close()
  local body = assert(text:match("typedef enum sb_status {(.-)} sb_status;"), "no sb_status enum")
  local statuses = {}
  for name, value in body:gmatch("SB_([A-Z]+)%s*=%s*(%d+)") do statuses[name] = tonumber(value) end
  return statuses
end

describe("status codes", function()
  it("reads every status of the header, each with an explicit, distinct number", function()
    local statuses, seen, count = header_statuses(), {}, 0
    for name, value in pairs(statuses) do
      assert.is_nil(seen[value], name .. " reuses " .. value)
      seen[value] = name
      count = count + 1
    end
    assert.are.equal(0, statuses.OK)
    assert.are.equal(14, statuses.ENOTFOUND)
    assert.are.equal(16, count) -- OK, 14 errors, PENDING
  end)

  it("carries every error status of the header under its own name", function()
    local name = helper.name("Codes")
    sb.target(name, { show = function() return "reached" end })
    local wanted
    local id = assert(sb.intercept(1, function(call)
      if call.target == name then return "reject", "refused with " .. wanted, wanted end
    end))
    local checked = 0
    for status in pairs(header_statuses()) do
      if status ~= "OK" and status ~= "PENDING" then
        wanted = status
        local result, message, code = sb.perform(name, "show")
        assert.is_nil(result)
        assert.are.equal("refused with " .. status, message)
        assert.are.equal(status, code)
        checked = checked + 1
      end
    end
    assert.are.equal(14, checked)
    assert.is_true(sb.unintercept(id))
    sb.unregister(name)
  end)

  it("keeps no table of names of its own: the library's sb_status_name is the one place", function()
    local files = assert(io.popen("ls Sources/SwitchboardLua/*.c"))
    local tables, readers = 0, 0
    for path in files:lines() do
      local f = assert(io.open(path))
      local text = f:read("a")
      f:close()
      for _ in text:gmatch('{SB_([A-Z]+),%s*"([A-Z]+)"}') do tables = tables + 1 end
      for _ in text:gmatch("sb_status_name%(") do readers = readers + 1 end
    end
    files:close()
    assert.are.equal(0, tables)
    assert.is_true(readers >= 2) -- util.c: a status's name, and a name's status
  end)

  it("answers a lookup of something absent with ENOTFOUND, a call with ENOTARGET", function()
    local absent = helper.name("Absent")
    local _, _, code = sb.perform(absent, "show")
    assert.are.equal("ENOTARGET", code)
    _, _, code = sb.unregister(absent)
    assert.are.equal("ENOTFOUND", code)
    _, _, code = sb.evict(absent)
    assert.are.equal("ENOTFOUND", code)
    _, _, code = sb.remove_url_pattern("app://" .. absent .. "/:x")
    assert.are.equal("ENOTFOUND", code)
    _, _, code = sb.unintercept(987654)
    assert.are.equal("ENOTFOUND", code)
    _, _, code = sb.unobserve(987654)
    assert.are.equal("ENOTFOUND", code)
    _, _, code = sb.remove_service(absent)
    assert.are.equal("ENOTFOUND", code)
  end)
end)
