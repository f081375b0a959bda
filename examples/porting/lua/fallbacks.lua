local sb = require "switchboard"

-- Target_NoTargetAction answers what nothing else answers, with CTMediator's
-- params and a few more; this one answers with them.
sb.target("NoTargetAction", { response = function(p) return p end })

local function show(label, p, ...)
  if type(p) ~= "table" then return print(label, p, ...) end
  print(label, p.targetString, p.selectorString, p.target, p.action, p.url)
end

-- notFound: answers the actions its target lacks, with their params.
sb.target("Help", { notFound = function(p) return "no help on " .. (p.topic or "that") end })
show("notFound:", sb.perform("Help", "search", { topic = "tea" }))

-- No target, or no action and no notFound: NoTargetAction answers.
show("no target:", sb.perform("Shop", "open", { id = 7 }))
show("module key:", sb.perform("Cart", "add", { kCTMediatorParamsKeySwiftTargetModuleName = "Shop" }))
show("from a URL:", sb.open("app://Shop/open?id=7"))

-- A missing action also drops the cached target (the cart starts again).
show("cached:", sb.perform("Cart", "add", { item = "tea" }, { cache = true }))
show("no action:", sb.perform("Cart", "checkout"))
show("cached:", sb.perform("Cart", "add", { item = "tea" }, { cache = true }))

-- fallback = false reports what is missing instead of falling back.
show("no fallback:", sb.perform("Cart", "checkout", nil, { fallback = false }))
