-- Actions whose names hold tabs, newlines with TAP lines after them, a CR, and Unicode twins.
return {
  plain = function() return 1 end,
  ["tab\there"] = function() return 2 end,
  ["nl\nnot ok 99 - injected by an action name"] = function() return 3 end,
  ["x\ncalled\tEvil\tplain"] = function() return 4 end,
  ["never\nBail out! injected"] = function() return 5 end,
  ["caf\u{e9}"] = function() return 6 end,
  ["cafe\u{301}"] = function() return 7 end,
  ["cr\r"] = function() return 8 end,
}
