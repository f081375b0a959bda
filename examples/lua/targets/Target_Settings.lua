-- A Lua target found by name on sb.path the first time it is performed:
-- nobody registers it (the Lua counterpart of NSClassFromString).
local opened = 0

return {
  nativeFetchSettingsPage = function(params)
    opened = opened + 1
    return { page = "SettingsViewController", section = params.section or "general", opened = opened }
  end,
}
