-- Run under valgrind by scripts/lua-tests.sh valgrind, with no plugin loaded
-- (load_plugin pins libswitchboard, which hid this): lua_close dlcloses the
-- module. The library and the Swift runtime inside it must stay mapped, or
-- their lazily made globals (names, metadata caches, the shared mediator)
-- show up as definitely lost, and a host opening and closing states loses
-- them again with each state.
local sb = require "switchboard"
assert(sb.version)
sb.target("Unload", { echo = function(p) return p end })
assert(sb.perform("Unload", "echo", { n = 1, list = { 1, 2 } }).n == 1)
assert(select(3, sb.perform("Nobody", "x")) == "ENOTARGET")
sb.unregister("Unload")
