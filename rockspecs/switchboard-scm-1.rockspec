-- The Lua binding of Switchboard, built by LuaRocks' builtin backend against
-- an installed libswitchboard (scripts/install.sh). From the repository root:
--
--   luarocks --lua-version=5.4 make rockspecs/switchboard-scm-1.rockspec \
--     SWITCHBOARD_DIR=/usr/local            (the prefix libswitchboard is in)
--
-- or from a copy of PREFIX/share/switchboard/lua, where scripts/install.sh
-- puts this file beside the sources it names (docs/lua.md):
--
--   luarocks --lua-version=5.4 make SWITCHBOARD_DIR=PREFIX
--
-- Only the C glue is compiled here; the mediator itself (Swift, with its
-- runtime inside) is the installed libswitchboard.so, found at run time
-- through the run path LuaRocks records for SWITCHBOARD_LIBDIR.
rockspec_format = "3.0"
package = "switchboard"
version = "scm-1"
source = {
   url = "git+file://.",
}
description = {
   summary = "Target-Action mediator (CTMediator's idea) for Lua, C and Swift",
   detailed = [[
require "switchboard" gives Lua scripts one mediator shared with the C and
Swift parts of the process: call targets by name, register Lua targets,
open URLs, interceptors, services and contracts.]],
   license = "MIT",
}
dependencies = {
   "lua >= 5.4, < 5.5",
}
external_dependencies = {
   SWITCHBOARD = {
      header = "switchboard.h",
      library = "switchboard",
   },
}
build = {
   type = "builtin",
   modules = {
      switchboard = {
         sources = {
            "Sources/SwitchboardLua/await.c",
            "Sources/SwitchboardLua/charge.c",
            "Sources/SwitchboardLua/context.c",
            "Sources/SwitchboardLua/contract.c",
            "Sources/SwitchboardLua/convert.c",
            "Sources/SwitchboardLua/direct.c",
            "Sources/SwitchboardLua/discover.c",
            "Sources/SwitchboardLua/hooks.c",
            "Sources/SwitchboardLua/later.c",
            "Sources/SwitchboardLua/module.c",
            "Sources/SwitchboardLua/pin.c",
            "Sources/SwitchboardLua/services.c",
            "Sources/SwitchboardLua/urls.c",
            "Sources/SwitchboardLua/util.c",
            "Sources/SwitchboardLua/value.c",
         },
         defines = { "_POSIX_C_SOURCE=200809L" },
         incdirs = {
            "$(SWITCHBOARD_INCDIR)",
            "Sources/CSwitchboard/include",
            "Sources/SwitchboardLua/include",
         },
         libdirs = { "$(SWITCHBOARD_LIBDIR)" },
         libraries = { "switchboard", "pthread" },
      },
   },
}
