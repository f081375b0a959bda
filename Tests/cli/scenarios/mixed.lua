-- One scenario of each outcome; the run must go on past every one.
scenario("passes, with steps and output", function()
  step("first", function() expect(1 + 1).to_equal(2) end)
  step("second", function() print("visible", 42); io.write("written\n") end)
end)

scenario("fails a deep comparison", function()
  step("compare", function()
    expect({ user = { name = "Ada", langs = { "lua", "c" } } })
      .to_equal({ user = { name = "Ada", langs = { "lua", "swift" } } })
  end)
end)

scenario("errors", function()
  local t = nil
  return t.field
end)

scenario("keeps 3 and 3.0 apart", function()
  expect(3).to_equal(3.0)
end)

scenario("passes after the others", function()
  expect(sb.perform("A", "nativeNoImage").image):to_equal("placeholder.png")
end)
