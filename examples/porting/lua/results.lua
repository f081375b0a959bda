local sb = require "switchboard"
package.path = "generated/?.lua;" .. package.path
local tea = { item = "tea", price = 2.5 }

-- CTMediator boxes NSInteger, BOOL and CGFloat in an NSNumber and gives nil
-- for void; Lua gets an integer, a float, a boolean, and sb.null for void
-- (nil is left for a failure, so assert(sb.perform(...)) holds).
for _, action in ipairs { "add", "total", "isEmpty", "nativeClear" } do
  local result = sb.perform("Cart", action, tea, { cache = true })
  print(action .. ":", result == sb.null and "sb.null" or result, math.type(result) or type(result))
end

-- CTMediator+Cart, the category of typed methods, is generated from the
-- contracts: switchboard gen --lang lua (generated/sb_cart.lua).
local Cart = require "sb_cart"
print("Cart.add:", Cart.add({ item = "tea", price = 2.5 }, { cache = true }))
print("Cart.total:", Cart.total(nil, { cache = true }))
print("misspelt:", pcall(Cart.add, { item = "tea", prize = 2.5 }))

-- A typed wrapper never takes a fallback: it knows nothing of its type.
sb.target("NoTargetAction", { response = function() return "a 404 page" end })
sb.path = "./nowhere/?.lua"
sb.unregister("Cart") -- Target_Cart.lua is not found any more
print("sb.perform:", sb.perform("Cart", "total"))
print("Cart.total:", Cart.total())

-- A declared result is checked on every call.
sb.target("Cart", { total = { result = "double", fn = function() return "free" end } })
print("sb.perform:", sb.perform("Cart", "total"))
