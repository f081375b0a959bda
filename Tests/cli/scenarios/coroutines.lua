-- Every coroutine counts against the one instruction budget (issue 19,
-- item 12). Run with --max-instructions 1000000: each scenario below but
-- the generator and the last runs about 30 million instructions, most of
-- them inside coroutines shorter than the hook's period.
scenario("work spread over short coroutine.wrap coroutines", function()
  for _ = 1, 50000 do
    coroutine.wrap(function() for _ = 1, 200 do end end)()
  end
end)

scenario("work spread over short coroutine.create coroutines", function()
  for _ = 1, 50000 do
    coroutine.resume(coroutine.create(function() for _ = 1, 200 do end end))
  end
end)

scenario("a generator's work is counted once, not per resume", function()
  local gen = coroutine.wrap(function() for i = 1, 20000 do coroutine.yield(i) end end)
  local sum = 0
  for _ = 1, 20000 do sum = sum + gen() end
  expect(sum).to_be(200010000)
end)

scenario("later scenarios still run", function()
  expect(1 + 1).to_be(2)
end)
