-- Bytes that are not UTF-8 in a failure's message, an error and the output:
-- a report shows each as \xHH, never as U+FFFD (which would make "\xff" and
-- "\xfe" look the same).
scenario("compares two strings that are not UTF-8", function()
  print("printed \xff, then é, then \xe9 alone")
  expect("\xff").to_equal("\xfe")
end)
scenario("raises bytes that are not UTF-8", function() error("an overlong slash \xc0\xaf and a surrogate \xed\xa0\x80", 0) end)
scenario("a long string cut inside a character", function()
  expect(string.rep("a", 199) .. "é" .. "\xff").to_equal("x")
end)
