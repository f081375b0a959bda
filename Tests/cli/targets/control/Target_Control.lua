-- Control characters (ESC, BEL, C1 CSI) in an action's name, its result and its error.
return {
  ["name \27[2J\u{9b}31m"] = function() return 1 end,
  result = function() return { text = "ESC \27[2J BEL \7 CSI \u{9b}31m DEL \127" } end,
  fails = function() error("raised \27]0;title\7 \u{9b}2J") end,
}
