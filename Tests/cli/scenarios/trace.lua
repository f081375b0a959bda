-- Calls whose --trace records the tests check.
scenario("traced calls", function()
  sb.perform("A", "nativeFetchDetailViewController", { key = "k1", n = 3, x = 2.5 })
  sb.perform("Nobody", "missing", { bytes = "\xff\xfe" })
  sb.open("app://A/cell?identifier=Traced")
  sb.open("app://A/nativeNoImage")
  sb.target("Inner", { go = function() return sb.perform("A", "nativeNoImage") end })
  sb.perform("Inner", "go", { nan = 0 / 0 })
end)
