/*
 * The helpers every file of the glue calls: status names, locking a
 * metatable, the `nil, message, code` of a failure. They call nothing else
 * of the glue (luv keeps its shared helpers in util.c the same way), so the
 * other files depend on this one and it on none of them.
 */
#include "internal.h"

#include <string.h>

/* The names are the library's (sb_status_name), one table for every face. */
const char *sb_lua_status_name(sb_status status) {
    return sb_status_name(status);
}

/* The status a name names ("ETIMEOUT"), for a Lua action failing with one;
 * SB_EACTION for a name no status has (and for "OK" and "PENDING", which
 * are no failures). */
sb_status sb_lua_status_from_name(const char *name) {
    for (int s = SB_EINVAL; s < SB_PENDING; s++) {
        const char *known = sb_status_name((sb_status)s);
        if (strcmp(known, "EUNKNOWN") != 0 && strcmp(known, name) == 0) return (sb_status)s;
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
