-- Odd names: TAP and JUnit must carry them intact.
scenario("has # and \\ and <xml & \"quotes\">", function()
  print("control \1 char and <tags> & ampersands")
  expect(1).to_equal(2)
end)
scenario("multi\nline name", function() end)
