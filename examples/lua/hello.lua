local sb = require "switchboard"

-- A target written in Lua: a table of actions.
sb.target("Greeter", {
  hello = function(params)
    local text = "Hello, " .. (params.name or "world") .. "!"
    return params.done(text) -- a callback the caller passed
  end,
})

local answer = sb.perform("Greeter", "hello", {
  name = "Ada",
  done = function(text) print("greeter said: " .. text); return true end,
})                                              --> greeter said: Hello, Ada!
print(answer)                                   --> true

print(sb.perform("Nobody", "anything"))         --> nil  no target named "Nobody"  ENOTARGET
