-- A top level stuck in C (a pattern that backtracks for ever).
string.find(string.rep("a", 40), string.rep("a-", 20) .. "b")
scenario("never runs", function() end)
