-- What answers when nothing else does: a target's notFound, then the app's
-- NoTargetAction, then a clear error.
--
--   switchboard run --plugin module_a.so --targets targets fallbacks.lua

scenario("an unknown action goes to the target's notFound", function()
  -- Target_Catalog.lua (in targets/) has a notFound action.
  expect(sb.perform("Catalog", "item", { sku = "X1" })).to_equal({ sku = "X1", name = "Item X1" })
  expect(sb.perform("Catalog", "nativeNoSuchAction", { sku = "X1" }))
    .to_equal({ page = "CatalogHomeViewController", sku = "X1" })
end)

scenario("an unknown target goes to NoTargetAction", function()
  sb.target("NoTargetAction", {
    response = function(p)
      return { page = "NotFoundViewController", target = p.target, action = p.action }
    end,
  })
  expect(sb.perform("B", "nativeFetchDetailViewController", { key = "x" }))
    .to_equal({ page = "NotFoundViewController", target = "B", action = "nativeFetchDetailViewController" })
end)

scenario("without a fallback, the failure says what is missing", function()
  -- The NoTargetAction of the scenario before is gone: every scenario
  -- starts with a fresh mediator.
  expect(sb.perform("B", "anything")).to_fail_with("ENOTARGET")
  expect(sb.perform("A", "nativeNoSuchAction")).to_fail_with("ENOACTION")
  local _, message = sb.perform("B", "anything")
  expect(message).to_contain("B")
end)
