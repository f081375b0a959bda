-- after_all raises: told on the report of the scenario run last.
after_all(function() error("after_all broke") end)
scenario("runs first", function() expect(1).to_equal(1) end)
scenario("runs, then after_all fails", function() expect(1).to_equal(1) end)
