-- Tags, skip and todo: what `run --tag/--exclude-tag/--filter` select.
scenario("fast lookup", { tags = { "fast" } }, function() expect(1).to_equal(1) end)
scenario("slow network call", { tags = { "slow", "net" } }, function() expect(2).to_equal(2) end)
scenario("net only", { tags = { "net" } }, function() expect(3).to_equal(3) end)
scenario("Untagged Mixed Case", function() expect(4).to_equal(4) end)
