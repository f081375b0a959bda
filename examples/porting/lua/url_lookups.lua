local sb = require "switchboard"

-- valueConverters["slug"]: letters and "-", in lower case; nil declines.
sb.converter("slug", function(s) if s:match("^[%a-]+$") then return s:lower() end end)
sb.url_pattern("shop://tag/<slug:item>", "Cart", "add")

-- generateURLWithPattern:parameters: — by name; matching gives them back.
local url = sb.build_url("shop://tag/<slug:item>", { item = "Green-Tea", price = "2" })
print("built:", url)

-- canRouteURL:, handler(for:) — what would answer, calling nothing.
local found = sb.lookup(url)
print("lookup:", found.kind, found.target, found.action, found.params.item)
print("opened:", sb.open(url))

-- unmatchedURLHandler — for the scheme (nil: every scheme).
print("before:", sb.open("shop://cart"))
sb.unmatched("shop", function(u) return "no page for " .. u.url end)
print("fallback:", sb.open("shop://cart?x=1"))

-- unregisterRouteScheme: every pattern of the scheme at once.
print("removed:", table.concat(sb.remove_url_patterns("shop"), " "))
