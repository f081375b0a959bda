-- The CTMediator demo from Lua: a script that calls the C module_a plugin,
-- Lua targets (one registered here, one found on sb.path), passes Lua
-- callbacks, and meets both fallbacks. Module A is called through
-- generated/sb_a.lua: wrappers made from its contracts by `switchboard gen`
-- (scripts/generate.sh), which check params before calling. The last two
-- steps are the remote call: an app:// URL opened with a completion, and a
-- native* action that the URL entry refuses.
--
--   lua5.4 examples/lua/demo.lua path/to/module_a.so
local sb = require "switchboard"
local here = arg[0]:match("^(.*)/") or "."
package.path = here .. "/?.lua;" .. package.path
local show = require "show"
local A = require "generated.sb_a"

local plugin = assert(arg[1], "usage: lua5.4 demo.lua path/to/module_a.so")
assert(sb.load_plugin(plugin))
sb.path = here .. "/targets/?.lua"

-- The app's own fallback (CTMediator's Target_NoTargetAction), in Lua.
sb.target("NoTargetAction", {
  response = function(p)
    return { page = "NotFoundViewController",
             reason = string.format("nothing answers %s/%s", p.target, p.action) }
  end,
})

local function step(title) print("\n== " .. title) end

print(string.format("switchboard %s from Lua, module A from %s", sb.version, plugin))

step("1. present detail page (nativeFetchDetailViewController, a C target)")
show(A.nativeFetchDetailViewController{ key = "present from Lua" })

step("2. a target written in Lua, found on sb.path with no registration")
show(sb.perform("Settings", "nativeFetchSettingsPage", { section = "privacy" }))
show(sb.perform("Settings", "nativeFetchSettingsPage"))

step("3. present image (nativePresentImage)")
show(A.nativePresentImage{ image = "switchboard.png" })

step("4. present image with no image: the nil-image fallback (nativeNoImage)")
local image = nil
if image then
  show(A.nativePresentImage{ image = image })
else
  show(A.nativeNoImage())
end

step("5. show alert with Lua callbacks; the user taps Confirm")
local function on_alert(which)
  return function(info)
    print(string.format("   [lua] %s called: %s", which, info.message))
    return which
  end
end
show(A.showAlert{ message = "Delete the draft?", answer = "confirm",
                  confirmAction = on_alert("confirmAction"), cancelAction = on_alert("cancelAction") })

step("6. show alert; the user taps Cancel")
show(A.showAlert{ message = "Delete the draft?", answer = "cancel",
                  confirmAction = on_alert("confirmAction"), cancelAction = on_alert("cancelAction") })

step("7. table cells from a cached C target, then release it")
for row = 1, 3 do
  local cell = assert(A.cell({ identifier = "DemoCell" }, { cache = true }))
  show(A.configCell({ cell = cell, title = "Row " .. row }, { cache = true }))
end
sb.evict("A")
print("   released the cached target A; the next cell comes from a new instance:")
show(A.cell({ identifier = "DemoCell" }, { cache = true }))
sb.evict("A")

step("8. a target that does not exist: the NoTargetAction response (in Lua)")
show(sb.perform("B", "nativeFetchDetailViewController", { key = "x" }))

step("9. without a fallback, a failure is nil, message, code")
sb.unregister("NoTargetAction")
show(sb.perform("B", "nativeFetchDetailViewController"))

step("10. a misspelt param: the generated wrapper stops it at the call")
print("   -> " .. select(2, pcall(function() A.nativePresentImage{ imgae = "switchboard.png" } end)))

-- The caller's completion for a URL call: it receives {result = value}, or
-- {error = message, code = "E..."} when the call failed.
local function open_remote(url)
  print("   open " .. url)
  show(sb.open(url, function(info) print("   [caller] completion got " .. show.render(info)) end))
end

step("11. a remote call: a URL opened with a completion (app:// reaches targets by name)")
open_remote("app://A/cell?identifier=LinkCell")

step("12. a native action from a URL: refused before any code of A runs")
open_remote("app://A/nativeFetchDetailViewController?key=from%20a%20link")

step("13. an action that answers later (Net.download), called in a coroutine: it suspends, sb.poll() resumes it")
local download = coroutine.wrap(function()
  local file, message = sb.perform("Net", "download", { url = "app://news/today", ms = 20 })
  print("   [coroutine] resumed with " .. show.render(file or message))
end)
download()
print("   the caller goes on; calls pending: " .. sb.pending())
-- A real host waits until sb.fd() is readable (an event loop: see docs/lua.md);
-- the demo just polls until the answer has come.
while sb.pending() > 0 do sb.poll() end
