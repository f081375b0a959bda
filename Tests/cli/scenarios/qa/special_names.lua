-- Names with the characters XML and TAP treat specially.
scenario([[<b>&amp; "quoted" 'single' ]]  .. "]]>", function() expect(1).to_equal(2) end)
scenario("hash # TODO not a directive", function() expect(1).to_equal(1) end)
scenario("skip # SKIP me \\ back", { skip = "why # TODO <no> & ]]>" }, function() end)
scenario("todo with # in reason", { todo = "later # SKIP & <x>" }, function() expect(1).to_equal(2) end)
