/*
 * The helpers every file of the glue calls: status names, argument checks,
 * failures pushed as nil, message, code, and locked metatables. This file
 * calls nothing else of the glue (as luv keeps its shared helpers in
 * util.c), so the other files depend on it and it on none of them.
 */
#include "internal.h"

#include <string.h>

/* The library's own names (sb_status_name), so that Lua, the command and
 * traces spell a status alike. */
const char *sb_lua_status_name(sb_status status) {
    return sb_status_name(status);
}

/* The status a name gives (an error object's code); SB_EACTION for a name
 * no status has, as for an action that raised. Every failure status is
 * below SB_PENDING; the numbers no status has are named "EUNKNOWN". */
sb_status sb_lua_status_from_name(const char *name) {
    if (strcmp(name, "EUNKNOWN") == 0) return SB_EACTION;
    for (int s = SB_OK + 1; s < SB_PENDING; s++) {
        if (strcmp(sb_status_name((sb_status)s), name) == 0) return (sb_status)s;
    }
    return SB_EACTION;
}

const char *sb_lua_check_name(lua_State *L, int arg) {
    size_t length;
    const char *name = luaL_checklstring(L, arg, &length);
    luaL_argcheck(L, length > 0, arg, "empty name");
    luaL_argcheck(L, strlen(name) == length, arg, "name contains a NUL byte");
    return name;
}

void sb_lua_lock_metatable(lua_State *L, const char *what) {
    lua_pushstring(L, what);
    lua_setfield(L, -2, "__metatable");
}

int sb_lua_push_failure(lua_State *L, sb_status status) {
    lua_pushnil(L);
    lua_pushstring(L, sb_error_message());
    lua_pushstring(L, sb_lua_status_name(status));
    return 3;
}
