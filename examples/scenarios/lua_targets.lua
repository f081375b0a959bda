-- Lua targets: found by name in the --targets directory, registered by the
-- scenario, and calling C in turn.
--
--   switchboard run --plugin module_a.so --targets targets lua_targets.lua

scenario("a Lua target is found by name, with no registration", function()
  expect(sb.perform("Settings", "nativeFetchSettingsPage", { section = "privacy" }))
    .to_equal({ page = "SettingsViewController", section = "privacy", opened = 1 })
  -- the file ran once: its state carries over to the next call
  expect(sb.perform("Settings", "nativeFetchSettingsPage").opened).to_equal(2)
end)

scenario("a Lua target calls the C plugin and passes it a callback", function()
  sb.target("Drafts", {
    discard = function(p)
      local confirmed = false
      sb.perform("A", "showAlert", {
        message = "Discard " .. p.title .. "?",
        answer = p.answer,
        confirmAction = function() confirmed = true end,
      })
      return { discarded = confirmed }
    end,
  })
  expect(sb.perform("Drafts", "discard", { title = "notes", answer = "confirm" })).to_equal({ discarded = true })
  expect(sb.perform("Drafts", "discard", { title = "notes", answer = "cancel" })).to_equal({ discarded = false })
end)

scenario("a route pattern sends a URL to a Lua target", function()
  sb.target("Profile", { show = function(p) return { user = p.id, tab = p.tab or "posts" } end })
  expect(sb.url_pattern("app://user/<int:id>(/:tab)", "Profile", "show")).to_be_true()
  expect(sb.open("app://user/7")).to_equal({ user = 7, tab = "posts" })
  expect(sb.open("app://user/7/likes")).to_equal({ user = 7, tab = "likes" })
  expect(sb.open("app://user/seven")).to_fail_with()
end)
