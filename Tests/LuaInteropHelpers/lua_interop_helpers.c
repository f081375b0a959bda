#include "lua_interop_helpers.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "switchboard_lua.h"

static char *copy(const char *s) {
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c != NULL) memcpy(c, s, n);
    return c;
}

static int open_protected(lua_State *L) {
    sb_mediator *m = lua_touserdata(L, 1);
    luaL_openlibs(L);
    sb_lua_open(L, m);
    lua_setglobal(L, "sb");
    return 0;
}

lua_State *helper_lua_new(sb_mediator *m) {
    lua_State *L = luaL_newstate();
    if (L == NULL) return NULL;
    lua_pushcfunction(L, open_protected);
    lua_pushlightuserdata(L, m);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        lua_close(L);
        return NULL;
    }
    return L;
}

void helper_lua_close(lua_State *L) { lua_close(L); }

char *helper_lua_run(lua_State *L, const char *chunk, char **error) {
    *error = NULL;
    if (luaL_loadstring(L, chunk) != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
        *error = copy(lua_tostring(L, -1) ? lua_tostring(L, -1) : "(error)");
        lua_pop(L, 1);
        return NULL;
    }
    char *result = copy(luaL_tolstring(L, -1, NULL));
    lua_pop(L, 2);
    return result;
}

sb_status helper_matrix_target(void *userdata, const sb_value *params, sb_value **out) {
    sb_value *arg = sb_string("c"), *answer = NULL;
    (void)userdata;
    sb_status s = sb_callback_call(sb_dict_get(params, "cb"), arg, &answer);
    sb_value_release(arg);
    if (s != SB_OK) return s;
    *out = sb_dict_new();
    sb_dict_set_new(*out, "target", sb_string("c"));
    sb_dict_set_new(*out, "callback", answer);
    return SB_OK;
}

static sb_status c_callback(void *userdata, const sb_value *args, sb_value **out) {
    char text[128];
    (void)userdata;
    snprintf(text, sizeof text, "c got %s", sb_value_get_string(args, NULL) ? sb_value_get_string(args, NULL) : "?");
    *out = sb_string(text);
    return SB_OK;
}

char *helper_matrix_call_from_c(sb_mediator *m, const char *target) {
    sb_value *params = sb_dict_new(), *out = NULL;
    sb_dict_set_new(params, "cb", sb_callback_new(c_callback, NULL, NULL));
    sb_status s = sb_action_perform(m, target, "run", params, 0, &out);
    sb_value_release(params);
    if (s != SB_OK) return NULL;
    char text[256];
    snprintf(text, sizeof text, "target=%s callback=%s", sb_value_get_string(sb_dict_get(out, "target"), NULL),
             sb_value_get_string(sb_dict_get(out, "callback"), NULL));
    sb_value_release(out);
    return copy(text);
}
