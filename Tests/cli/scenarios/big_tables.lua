-- Failures whose message could be huge; an error object with __tostring.
scenario("fails on a table shared 20 ways at 6 levels", function()
  local t = {}
  for _ = 1, 6 do local up = {} for i = 1, 20 do up[i] = t end t = up end
  expect(t).to_equal({})
end)
scenario("fails on an array of a million", function()
  local t = {} for i = 1, 1000000 do t[i] = i end
  expect(t).to_equal({})
end)
scenario("raises an object with __tostring", function()
  error(setmetatable({ code = 5 }, { __tostring = function() return "custom message" end }))
end)
