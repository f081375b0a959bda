scenario("last file", function() expect(1).to_equal(1) end)
