/* Actions declared with a contract in Lua:
 *
 *   sb.target("A", { show = { params = "message: string, times: int = 1",
 *                             result = "bool", exposure = "local",
 *                             fn = function(p) ... end } })
 *
 * `params` is the contract syntax (a string), or a list of tables
 * {name =, type =, required =, default =, doc =} in order. The text handed
 * to sb_action_register_contract is that string with the result and the
 * exposure appended, or the contract's JSON form. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int fail(char *error, size_t size, const char *action, const char *what) {
    snprintf(error, size, "action \"%s\": %s", action, what);
    return 0;
}

/* A string field of the spec at `spec`, NULL when absent; 0 when present but
 * not a string. */
static int string_field(lua_State *L, int spec, const char *key, const char **out) {
    int type = lua_getfield(L, spec, key);
    *out = type == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    lua_pop(L, 1); /* the spec table keeps the string alive */
    return type == LUA_TNIL || type == LUA_TSTRING;
}

/* Whether spec[key] is a table with nothing in it ({} would read as a dict). */
static int empty_table(lua_State *L, int spec, const char *key) {
    lua_getfield(L, spec, key);
    lua_pushnil(L);
    int empty = lua_next(L, -2) == 0;
    lua_pop(L, empty ? 1 : 3);
    return empty;
}

/* The compact form: `params` with the result and exposure lines appended. */
static char *compact(const char *params, const char *result, const char *exposure) {
    size_t n = strlen(params) + (result ? strlen(result) + 5 : 0) + (exposure ? strlen(exposure) + 2 : 0) + 1;
    char *text = malloc(n);
    if (text == NULL) return NULL;
    snprintf(text, n, "%s%s%s%s%s", params, result ? "\n-> " : "", result ? result : "", exposure ? "\n" : "",
             exposure ? exposure : "");
    return text;
}

/* Whether the value at `index` is or holds code (a function, a userdata, a
 * thread; a light userdata other than sb.null), which a default cannot be:
 * converted, it would become a {"$callback": ...} dict, data that only looks
 * like the function. `seen` (a stack index) is a set of the tables already
 * looked into, so a cycle ends; nesting deeper than conversion allows is
 * left to it to refuse. */
static int holds_code(lua_State *L, int index, int seen, int depth) {
    switch (lua_type(L, index)) {
    case LUA_TFUNCTION: case LUA_TUSERDATA: case LUA_TTHREAD:
        return 1;
    case LUA_TLIGHTUSERDATA: /* sb.null is data: null */
        return lua_touserdata(L, index) != &sb_lua_null;
    case LUA_TTABLE:
        break;
    default:
        return 0;
    }
    index = lua_absindex(L, index);
    if (depth > SB_MAX_DEPTH || !lua_checkstack(L, 4)) return 0;
    int visited = lua_rawgetp(L, seen, lua_topointer(L, index)) != LUA_TNIL;
    lua_pop(L, 1);
    if (visited) return 0;
    lua_pushboolean(L, 1);
    lua_rawsetp(L, seen, lua_topointer(L, index));
    lua_pushnil(L);
    while (lua_next(L, index)) {
        if (holds_code(L, -2, seen, depth + 1) || holds_code(L, -1, seen, depth + 1)) {
            lua_pop(L, 2);
            return 1;
        }
        lua_pop(L, 1);
    }
    return 0;
}

/* Whether any of the param tables in spec.params has a default that holds
 * code. */
static int code_default(lua_State *L, int spec) {
    lua_newtable(L); /* the tables seen */
    int seen = lua_gettop(L);
    lua_getfield(L, spec, "params");
    int found = 0;
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = 1; i <= n && !found; i++) {
        if (lua_rawgeti(L, -1, i) == LUA_TTABLE) {
            lua_pushliteral(L, "default"); /* raw, as conversion reads the table */
            lua_rawget(L, -2);
            found = holds_code(L, -1, seen, 0);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
    return found;
}

/* The JSON form, converting {params =, result =, exposure =} from Lua. */
static char *json_form(lua_State *L, sb_lua_ctx *ctx, int spec, char *error, size_t size) {
    lua_createtable(L, 0, 3);
    lua_getfield(L, spec, "params");
    lua_setfield(L, -2, "params");
    lua_getfield(L, spec, "result");
    lua_setfield(L, -2, "result");
    lua_getfield(L, spec, "exposure");
    lua_setfield(L, -2, "exposure");
    sb_lua_conv conv;
    conv.ctx = ctx;
    sb_value *v = sb_lua_to_value_safely(L, -1, &conv);
    lua_pop(L, 1);
    if (v == NULL) {
        snprintf(error, size, "%s", conv.error);
        return NULL;
    }
    char *json = sb_json_encode(v);
    sb_value_release(v);
    char *text = json ? strdup(json) : NULL; /* the caller frees with free() */
    sb_memory_free(json);
    if (text == NULL) snprintf(error, size, "out of memory");
    return text;
}

/* The contract of the action spec table at `spec`, checked: a string to
 * free with free(), or NULL with `error` set. Leaves the stack as it was. */
char *sb_lua_contract(lua_State *L, sb_lua_ctx *ctx, const char *action, int spec, char *error, size_t size) {
    spec = lua_absindex(L, spec);
    lua_pushnil(L);
    while (lua_next(L, spec)) {
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        lua_pop(L, 1);
        if (key == NULL || (strcmp(key, "fn") && strcmp(key, "params") && strcmp(key, "result") &&
                            strcmp(key, "exposure"))) {
            lua_pop(L, 1);
            fail(error, size, action, "unknown key in the action's table (fn, params, result, exposure)");
            return NULL;
        }
    }
    const char *result, *exposure, *params;
    if (!string_field(L, spec, "result", &result) || !string_field(L, spec, "exposure", &exposure)) {
        fail(error, size, action, "result and exposure are strings");
        return NULL;
    }
    int params_type = lua_getfield(L, spec, "params");
    params = params_type == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    lua_pop(L, 1);
    char *text;
    if (params_type == LUA_TSTRING || params_type == LUA_TNIL) {
        text = compact(params ? params : "", result, exposure);
        if (text == NULL) snprintf(error, size, "out of memory");
    } else if (params_type == LUA_TTABLE && empty_table(L, spec, "params")) {
        text = compact("", result, exposure);
        if (text == NULL) snprintf(error, size, "out of memory");
    } else if (params_type == LUA_TTABLE && code_default(L, spec)) {
        fail(error, size, action, "a param's default is data: not a function, userdata or thread, nor a table holding one");
        return NULL;
    } else if (params_type == LUA_TTABLE) {
        char reason[256];
        text = json_form(L, ctx, spec, reason, sizeof reason);
        if (text == NULL) fail(error, size, action, reason);
    } else {
        fail(error, size, action, "params is a string (the contract syntax) or a list of tables");
        return NULL;
    }
    if (text != NULL && sb_contract_check(text) != SB_OK) {
        fail(error, size, action, sb_error_message());
        free(text);
        return NULL;
    }
    return text;
}
