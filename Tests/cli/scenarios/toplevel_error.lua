scenario("defined before the error", function() end)
error("the top level fails")
