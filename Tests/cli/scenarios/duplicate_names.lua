-- Two scenarios of one name: refused when the script is listed (their
-- reports could not be told apart; JUnit would hold two cases of that name).
scenario("checkout", function() expect(1).to_equal(1) end)
scenario("checkout", function() expect(2).to_equal(2) end)
