local sb = require "switchboard"
local urls = {
  "app://Cart/add?item=tea&price=2.5", -- the query's "2.5" becomes the double add declares
  "app://Cart/add/?item=tea",          -- one trailing slash, as in CTMediator
  "app://Cart/add/more?item=tea",      -- CTMediator would call Action_addmore:
  "app://Cart/nativeClear",            -- native* actions: never from a URL
  "shop://Cart/add?item=tea",          -- only app:// is connected by default
}
-- performActionWithUrl:completion: — the completion is always called, with
-- { result = value } or { error = message, code = name }.
for _, url in ipairs(urls) do
  sb.open(url, function(info) print(url, "->", info.result or info.code, info.error) end)
end

-- CTMediator takes any scheme; connect the ones you use.
sb.scheme("shop")
print("shop:", sb.open("shop://Cart/add?item=tea"))
print("refused:", sb.open("app://Cart/nativeClear"))
