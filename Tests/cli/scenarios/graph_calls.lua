-- Calls whose graph the tests draw (Tests/cli/tests_12_graph): a nested
-- call and a failing one made while answering, failures of every kind the
-- graph tells apart, and both fallbacks. Run with the example plugin and
-- Lua targets (Catalog has a notFound).
scenario("nested calls and failures", function()
  sb.target("Shop", {
    order = function()
      sb.perform("A", "nativeNoImage")
      sb.perform("A", "nativePresentImage", {}) -- EPARAMS: it needs an image
      return "ordered"
    end,
  })
  expect(sb.perform("Shop", "order")).to_equal("ordered")
  expect(sb.perform("Shop", "order")).to_equal("ordered")
  expect(sb.perform("Nobody", "here")).to_fail_with("ENOTARGET")
  expect(sb.perform("A", "noSuchAction")).to_fail_with("ENOACTION")
  expect(sb.open("app://A/cell?identifier=Graph").identifier).to_equal("Graph")
end)

scenario("fallbacks", function()
  expect(sb.perform("Catalog", "whatever", { sku = "1" }).page).to_equal("CatalogHomeViewController")
  sb.target("NoTargetAction", { response = function() return "fell back" end })
  expect(sb.perform("Ghost", "walk")).to_equal("fell back")
end)
