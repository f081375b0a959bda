-- A Lua target for the scenarios, found by name in this directory. Its
-- notFound answers the actions it does not have (CTMediator's notFound:),
-- with the params of the call.
return {
  item = function(p)
    return { sku = p.sku, name = "Item " .. tostring(p.sku) }
  end,
  notFound = function(p)
    return { page = "CatalogHomeViewController", sku = p.sku }
  end,
}
