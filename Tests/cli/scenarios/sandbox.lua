-- Without --allow-os nothing here reaches the system or the Lua internals.
scenario("refuses what would escape", function()
  for _, call in ipairs({
    { "os.execute", function() return os.execute("true") end },
    { "io.popen", function() return io.popen("true") end },
    { "os.exit", function() return os.exit(0) end },
    { "package.loadlib", function() return package.loadlib("libc.so.6", "puts") end },
    { "debug.sethook", function() return debug.sethook() end },
    { "debug.getregistry", function() return debug.getregistry() end },
    { "debug.getupvalue", function() return debug.getupvalue(load, 1) end },
    { "sb.load_plugin", function() return sb.load_plugin("/nonexistent.so") end },
  }) do
    local name, fn = call[1], call[2]
    expect(fn).to_raise(name:gsub("%.", "%%.") .. " is not available in scenarios %(run with %-%-allow%-os")
  end
end)

scenario("loads source text only", function()
  local binary = string.dump(function() return 1 end)
  local chunk, message = load(binary)
  expect(chunk).to_be_nil()
  expect(message).to_match("binary")
  expect(load("return 1 + 1")()).to_equal(2)
  local ok, err = pcall(require, "no_such_c_module")
  expect(ok).to_be_false()
  expect(package.cpath).to_equal("")
end)
