local sb = require "switchboard"

-- registerURLPattern:toHandler: — the handler gets the query, the captures
-- and the user info in one table. <int:id> arrives as an integer; (/:tab)
-- is optional.
sb.url_pattern("app://user/<int:id>(/:tab)", function(p)
  print("handler got", p.id, p.tab, p.ref, p.from)
  return "the user page"
end)
-- A pattern may lead to any target's action, Target_Cart's too.
sb.url_pattern("app://buy/:item", "Cart", "add")

-- openURL:withUserInfo:completion: — the user info goes beside the URL.
sb.open("app://user/42/posts?ref=mail", { from = "inbox" }, function(info)
  print("completion got", info.result)
end)
print("buy:", sb.open("app://buy/tea?price=2.5"))

-- deregisterURLPattern: — then app://buy/tea is target "buy", action "tea".
sb.remove_url_pattern("app://buy/:item")
print("removed:", sb.open("app://buy/tea"))
