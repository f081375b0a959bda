-- A syntax error: the script does not load.
scenario("never listed", function()
  expect(1).to_equal(1)
