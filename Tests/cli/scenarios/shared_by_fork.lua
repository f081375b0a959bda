-- What a fork shares that a scenario must not (isolation.c): each scenario
-- starts as if the top level had just run for it alone, whatever the
-- scenarios before it did. Run with --plugin process.so (Tests/cli/plugins)
-- and SB_DATA_FILE naming a file of the lines 1 to 2000 (more than a stdio
-- buffer holds, so that reading past the top level's place reads the file).
local data = assert(io.open(assert(os.getenv("SB_DATA_FILE"), "set SB_DATA_FILE"), "r"))
expect(data:read("l")).to_equal("1") -- the top level reads a line too

local function rest()
  local count, last = 0, nil
  for line in data:lines() do count, last = count + 1, line end
  return count, last
end

for i = 1, 2 do
  scenario("reads the rest of the file the top level opened " .. i, function()
    local count, last = rest()
    expect(count).to_equal(1999)
    expect(last).to_equal("2000")
  end)
end

for i = 1, 2 do
  scenario("draws random numbers " .. i, function()
    print("random " .. math.random(1 << 50))
    math.randomseed()
    print("reseeded " .. math.random(1 << 50))
  end)
end

scenario("cannot write into the runner's report", function()
  expect(sb.perform("Process", "forge")).to_equal(0)
end)

scenario("signals its process group", function()
  sb.perform("Process", "signal_group")
end)

scenario("closes every descriptor, its report's pipe too", function()
  sb.perform("Process", "close_all")
end)

scenario("leaves a process running", function()
  print("left " .. sb.perform("Process", "leave_process"))
end)

scenario("runs after all that", function()
  expect(data:read("l")).to_equal("2")
  expect((rest())).to_equal(1998)
end)
