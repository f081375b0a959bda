-- Control characters a terminal acts on (C0, DEL, C1) in everything a
-- scenario can put into a report: its output, its messages, its name.
scenario("prints control characters", function()
  print("ESC \27[2J clear, BEL \7, OSC \27]0;title\7, DEL \127, CSI \u{9b}31m, NEL\u{85}next, tab\tkept")
  io.write("no newline \27[1A")
end)
scenario("fails with control characters", function()
  error("red \27[31m and \u{9b}2J", 0)
end)
scenario("names with control characters are refused, C1 too", function()
  expect(function() scenario("CSI \u{9b}2J", function() end) end).to_raise("without control characters")
  expect(function() scenario("NEL \u{85}ok 9", function() end) end).to_raise("without control characters")
  expect(function() scenario("DEL \127", function() end) end).to_raise("without control characters")
end)
