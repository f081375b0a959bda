/*
 * The URL router's 1.1 functions in Lua (switchboard.h, "URLs"):
 *
 *   sb.lookup(url)                      where a URL would go, without calling -> table
 *   sb.build_url(pattern [, params])    a URL from a pattern -> string
 *   sb.unmatched(scheme | nil, fn | target, action | false)
 *                                       the fallback for URLs nothing matches -> true
 *   sb.converter(type, fn | false)      a placeholder type for patterns -> true
 *   sb.remove_url_patterns(scheme)           every pattern of a scheme -> {pattern...}
 *
 * Failures return nil, message, code; misuse raises. A converter or a
 * fallback handler is remembered like a scheme's handler: closing the state
 * removes it if it is still this state's.
 */
#include "internal.h"

#include <ctype.h>
#include <string.h>

/* As module.c: the longest URL, checked before anything reads the string. */
#define URL_MAX 65535

/* What the library keeps for a registration from Lua (see charge.c). */
static long long name_cost(const char *name) {
    return SB_LUA_REGISTRATION_COST + SB_LUA_NAME_COPIES * (long long)strlen(name);
}

/* A function at `idx` remembered under `kind` and `name` before the
 * mediator gets it; NULL when out of memory (fn is then freed). */
static sb_lua_fn *remembered(lua_State *L, sb_lua_ctx *ctx, char kind, const char *name, int idx) {
    sb_lua_fn *fn = sb_lua_fn_new(ctx, L, idx);
    if (fn != NULL && !sb_lua_remember(ctx, kind, name, "", fn)) {
        sb_lua_fn_free(fn);
        fn = NULL;
    }
    return fn;
}

/* sb.lookup(url) */
static int l_lookup(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    size_t length;
    const char *url = luaL_checklstring(L, 1, &length);
    if (length > URL_MAX) {
        sb_error_set("the URL is %zu bytes; the limit is %d", length, URL_MAX);
        return sb_lua_push_failure(L, SB_EBADURL);
    }
    luaL_argcheck(L, strlen(url) == length, 1, "the URL contains a NUL byte");
    sb_value *out = NULL;
    lua_State *previous = ctx->active;
    ctx->active = L; /* converters may call Lua */
    sb_status status = sb_url_lookup(ctx->m, url, &out);
    ctx->active = previous;
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    sb_lua_push_result(L, ctx, out);
    return 1;
}

static int push_cstring(lua_State *L) {
    lua_pushstring(L, lua_touserdata(L, 1));
    return 1;
}

/* sb.build_url(pattern [, params]) */
static int l_build_url(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    const char *pattern = sb_lua_check_text(L, 1, "empty pattern");
    sb_value *params = sb_lua_opt_table(L, ctx, 2, NULL);
    char *url = NULL;
    lua_State *previous = ctx->active;
    ctx->active = L;
    sb_status status = sb_url_build(ctx->m, pattern, params, &url);
    ctx->active = previous;
    sb_value_release(params);
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    /* Pushed in a protected call, so a memory error cannot leak the copy. */
    lua_pushcfunction(L, push_cstring);
    lua_pushlightuserdata(L, url);
    int rc = lua_pcall(L, 1, 1, 0);
    sb_memory_free(url);
    if (rc != LUA_OK) return lua_error(L);
    return 1;
}

/* sb.unmatched(scheme | nil, fn): a Lua handler; (scheme | nil, target,
 * action): a target's action; (scheme | nil, false): none. The handler is
 * remembered (and charged) under the scheme in lower case, or "*". */
static int l_unmatched(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    lua_settop(L, 3); /* the key below goes above the arguments, absent ones nil */
    const char *scheme = lua_isnil(L, 1) ? NULL : sb_lua_check_text(L, 1, "empty scheme");
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    if (scheme == NULL) luaL_addchar(&b, '*');
    for (const char *c = scheme; c != NULL && *c != '\0'; c++) luaL_addchar(&b, (char)tolower((unsigned char)*c));
    luaL_pushresult(&b);
    const char *key = lua_tostring(L, -1);
    sb_status status;
    if (lua_isboolean(L, 2) && !lua_toboolean(L, 2)) {
        status = sb_url_fallback_remove(ctx->m, scheme);
        sb_lua_uncharge_name(L, SB_LUA_CHARGE_FALLBACK, key);
        if (status != SB_OK) return sb_lua_push_failure(L, status);
        lua_pushboolean(L, 1);
        return 1;
    }
    if (lua_type(L, 2) == LUA_TFUNCTION) {
        sb_lua_fn *fn = remembered(L, ctx, SB_LUA_FALLBACK_HANDLER, key, 2);
        if (fn == NULL) return luaL_error(L, "switchboard: out of memory");
        status = sb_url_fallback_set_handler(ctx->m, scheme, sb_lua_action_call, fn, sb_lua_fn_free);
    } else {
        status = sb_url_fallback_set(ctx->m, scheme, sb_lua_check_text(L, 2, "empty name"), sb_lua_check_text(L, 3, "empty name"));
    }
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    sb_lua_recharge_or_raise(L, SB_LUA_CHARGE_FALLBACK, key, name_cost(key));
    lua_pushboolean(L, 1);
    return 1;
}

/* sb.converter(type, fn | false) */
static int l_converter(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    const char *type = sb_lua_check_text(L, 1, "empty type");
    sb_status status;
    if (lua_isboolean(L, 2) && !lua_toboolean(L, 2)) {
        status = sb_url_converter_remove(ctx->m, type);
        sb_lua_uncharge_name(L, SB_LUA_CHARGE_CONVERTER, type);
    } else {
        luaL_checktype(L, 2, LUA_TFUNCTION);
        sb_lua_fn *fn = remembered(L, ctx, SB_LUA_CONVERTER, type, 2);
        if (fn == NULL) return luaL_error(L, "switchboard: out of memory");
        status = sb_url_converter_add(ctx->m, type, sb_lua_fn_call, fn, sb_lua_fn_free);
        if (status == SB_OK) sb_lua_recharge_or_raise(L, SB_LUA_CHARGE_CONVERTER, type, name_cost(type));
    }
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    lua_pushboolean(L, 1);
    return 1;
}

/* sb.remove_url_patterns(scheme): the removed patterns' charges are given back. */
static int l_remove_url_patterns(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    sb_value *removed = NULL;
    sb_status status = sb_url_pattern_remove_scheme(ctx->m, sb_lua_check_text(L, 1, "empty scheme"), &removed);
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    sb_lua_push_result(L, ctx, removed); /* consumed, also if it raises */
    lua_Integer count = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = 1; i <= count; i++) {
        lua_rawgeti(L, -1, i);
        sb_lua_uncharge_name(L, SB_LUA_CHARGE_PATTERN, lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    return 1;
}

const luaL_Reg sb_lua_url_functions[] = {
    {"lookup", l_lookup},
    {"build_url", l_build_url},
    {"unmatched", l_unmatched},
    {"converter", l_converter},
    {"remove_url_patterns", l_remove_url_patterns},
    {NULL, NULL},
};
