local sb = require "switchboard"

-- registerService:@protocol(Basket) implClass:[Target_Cart class]: Lua names
-- the interface (actions with contracts) and binds a target that conforms.
sb.service("Basket", [[
  add(item: string -> int)
  total(-> double)
]])
print("bind:", sb.bind_service("Basket", "Cart"))
-- createService:@protocol(Basket), then a call: one step here.
print("Basket.add:", sb.perform_service("Basket", "add", { item = "tea" }))

-- Binding checks conformance and names what is missing.
sb.service("Checkout", "pay(cents: int -> bool)")
print("bind:", sb.bind_service("Checkout", "Cart"))
