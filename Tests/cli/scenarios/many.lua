-- 500 scenarios that pass at once.
for i = 1, 500 do scenario("quick " .. i, function() end) end
