local sb = require "switchboard"
-- Target_<Name>.lua files are looked up on sb.path (default "./?.lua").
local tea = { item = "tea", price = 2.5 }

-- shouldCacheTarget:NO: each call makes a cart and drops it.
print("uncached:", sb.perform("Cart", "add", tea))
print("uncached:", sb.perform("Cart", "add", tea))
-- shouldCacheTarget:YES keeps the cart; uncached calls use it too.
print("cached:", sb.perform("Cart", "add", tea, { cache = true }))
print("uncached:", sb.perform("Cart", "add", tea))
-- releaseCachedTargetWithFullTargetName:@"Target_Cart"
print("release:", sb.evict("Cart"))
print("release again:", sb.evict("Cart"))

-- kCTMediatorParamsKeySwiftTargetModuleName names the module (of a Swift
-- class, or of a target registered as "Module.Name"); "" names none.
tea.kCTMediatorParamsKeySwiftTargetModuleName = "Shop"
print("module Shop:", sb.perform("Cart", "add", tea))
tea.kCTMediatorParamsKeySwiftTargetModuleName = ""
print('module "":', sb.perform("Cart", "add", tea))
