-- Paths the specs need; scripts/lua-tests.sh sets them.
local helper = {}

local function required(name)
  return assert(os.getenv(name), name .. " is not set: run the Lua specs with scripts/lua-tests.sh")
end

helper.plugin = required("SB_TEST_PLUGIN")          -- Tests/lua/plugins/lua_test_plugin.c
helper.counter_plugin = required("SB_TEST_COUNTER")  -- Tests/c/plugins/test_plugin.c
helper.targets = required("SB_TEST_TARGETS")        -- Tests/lua/targets
helper.typed_plugin = required("SB_TEST_TYPED")      -- Tests/c/plugins/typed_plugin.c
helper.header = required("SB_TEST_HEADER")          -- the staged include/switchboard.h

-- A target name no other spec uses.
local serial = 0
function helper.name(prefix)
  serial = serial + 1
  return string.format("%s%d", prefix or "T", serial)
end

-- A row of docs/ROBUSTNESS.md (scripts/robustness.sh), recorded in
-- SB_ROBUSTNESS_LOG when it is set; call it once the test's checks passed.
function helper.row(fault, cases, observed)
  local log = os.getenv("SB_ROBUSTNESS_LOG")
  if not log or log == "" then return end
  local f = assert(io.open(log, "a"))
  f:write(fault, "\t", cases, "\t", observed, "\n")
  f:close()
end

return helper
