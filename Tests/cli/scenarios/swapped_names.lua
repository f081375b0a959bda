-- io.lines and io.input on a name that another process keeps switching
-- between a regular file and a FIFO (SB_SWAP names it; cli-tests.sh runs the
-- switcher): the file must be read through the descriptor that was checked,
-- never opened again by its name (issue 19, hostile review).
local swap = assert(os.getenv("SB_SWAP"), "run by scripts/cli-tests.sh")
scenario("io.lines and io.input read what they checked", function()
  local read, refused = 0, 0
  for _ = 1, 20000 do
    local ok = pcall(function() for _ in io.lines(swap) do end end)
    if ok then read = read + 1 else refused = refused + 1 end
    ok = pcall(io.input, swap)
    if ok then read = read + 1 else refused = refused + 1 end
  end
  expect(read + refused).to_be(40000)
end)
scenario("runs after it", function() end)
