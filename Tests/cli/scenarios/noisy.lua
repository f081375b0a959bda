-- 1,000 scenarios, each printing 64 KiB.
local text = string.rep("o", 64 * 1024)
for i = 1, 1000 do scenario("prints 64 KiB " .. i, function() io.write(text) end) end
