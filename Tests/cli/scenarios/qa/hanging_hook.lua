-- A before_each that never returns: the scenario's timeout stops it.
before_each(function() while true do end end)
scenario("stuck in before_each", function() expect(1).to_equal(1) end)
scenario("also stuck", function() expect(1).to_equal(1) end)
