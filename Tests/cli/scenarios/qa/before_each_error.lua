-- before_each raises: the scenario is an error naming the hook; the body does not run.
local ran = false
before_each(function() error("before_each broke") end)
after_each(function() print("after_each still ran") end)
scenario("never gets to its body", function() ran = true; expect(ran).to_be(false) end)
