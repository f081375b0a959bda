-- Calls actions of Target_Evil.lua (Tests/cli/targets/evil) whose names are hostile.
scenario("calls some hostile names", function()
  expect(sb.perform("Evil", "x\ncalled\tEvil\tplain")).to_equal(4)
  expect(sb.perform("Evil", "tab\there")).to_equal(2)
  expect(sb.perform("Evil", "cafe\u{301}")).to_equal(7)
  expect(sb.perform("Evil", "cr\r")).to_equal(8)
  sb.target("Fixture", { a = function() return 1 end })
  expect(sb.perform("Fixture", "a")).to_equal(1)
end)
