-- What a scenario registers, caches or breaks is gone before the next.
scenario("registers, caches and replaces", function()
  sb.target("Temp", { hello = function() return "temp" end })
  sb.route("app://temp/:x", "Temp", "hello")
  expect(sb.perform("A", "cell", nil, { cache = true }).cell).to_equal("cell 1")
  expect(sb.perform("A", "cell", nil, { cache = true }).cell).to_equal("cell 2")
  sb_leaked_global = true
  string.leaked = true
end)

scenario("sees none of it", function()
  expect(sb.perform("Temp", "hello")).to_fail_with("ENOTARGET")
  expect(sb.open("app://temp/1")).to_fail_with()
  expect(sb.perform("A", "cell", nil, { cache = true }).cell).to_equal("cell 1")
  expect(sb_leaked_global).to_be_nil()
  expect(string.leaked).to_be_nil()
end)

scenario("knows where its script is", function()
  expect(arg[0]).to_match("isolation%.lua$")
  local f = assert(io.open(arg[0]))
  expect(f:read("l")).to_match("^%-%- What a scenario registers")
  f:close()
end)
