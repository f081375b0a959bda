-- Scenarios over the C plugin module_a (CTMediator's Target_A):
--
--   switchboard run --plugin module_a.so --targets targets module_a.lua

scenario("the detail page carries the key", function()
  local page = sb.perform("A", "nativeFetchDetailViewController", { key = "42" })
  expect(page).to_equal({ page = "DemoModuleADetailViewController", title = "42" })
end)

scenario("an image, and the placeholder when there is none", function()
  step("with an image", function()
    expect(sb.perform("A", "nativePresentImage", { image = "switchboard.png" }))
      .to_equal({ page = "ImageViewController", image = "switchboard.png" })
  end)
  step("without one, its contract refuses the call", function()
    expect(sb.perform("A", "nativePresentImage")).to_fail_with("EPARAMS")
  end)
  step("nativeNoImage is the fallback", function()
    expect(sb.perform("A", "nativeNoImage").image).to_equal("placeholder.png")
  end)
end)

scenario("the alert calls back the Lua function of the tapped button", function()
  local calls = {}
  local function button(which)
    return function(info)
      calls[#calls + 1] = which .. ": " .. info.message
      return which
    end
  end
  local params = { message = "Delete the draft?", confirmAction = button("confirm"), cancelAction = button("cancel") }

  step("the user confirms", function()
    params.answer = "confirm"
    expect(sb.perform("A", "showAlert", params)).to_equal("confirm")
  end)
  step("the user cancels", function()
    params.answer = "cancel"
    expect(sb.perform("A", "showAlert", params)).to_equal("cancel")
  end)
  expect(calls).to_equal({ "confirm: Delete the draft?", "cancel: Delete the draft?" })
end)

scenario("a cached target keeps its state until it is released", function()
  local first = sb.perform("A", "cell", { identifier = "Row" }, { cache = true })
  local second = sb.perform("A", "cell", { identifier = "Row" }, { cache = true })
  expect(second.targetInstance).to_equal(first.targetInstance)
  expect(second.cell).to_equal("cell 2")
  expect(sb.evict("A")).to_be_true()
  local fresh = sb.perform("A", "cell", { identifier = "Row" }, { cache = true })
  expect(fresh.cell).to_equal("cell 1")
  expect(fresh.targetInstance).to_not_equal(first.targetInstance)
end)

scenario("a URL reaches the plugin, but never a native action", function()
  expect(sb.open("app://A/cell?identifier=FromURL").identifier).to_equal("FromURL")
  local result, message, code = sb.open("app://A/nativeFetchDetailViewController?key=1")
  expect(result).to_be_nil()
  expect(code).to_equal("EREJECTED")
  expect(message).to_match("native")
end)
