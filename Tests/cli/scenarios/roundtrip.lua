-- Values that JSON cannot hold as such, through Target_Echo.lua (Tests/cli/targets/echo).
scenario("values that JSON cannot hold as such", function()
  sb.perform("Echo", "echo", { bytes = "\xff\x00\xfe", nan = 0 / 0, inf = math.huge, ninf = -math.huge,
                               f = 3.0, i = 3, big = 2 ^ 63, list = { 1, "\xc3\xa9", { deep = { true } } } })
  sb.perform("Echo", "fail")
  sb.open("app://Echo/echo?x=1", { y = "\xff" })
end)
