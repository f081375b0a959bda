/*
 * C values that Lua cannot represent by itself — callbacks made in C or
 * Swift, host pointers — travel through Lua as userdata holding one
 * reference. They keep their identity: passed back to C, the same value
 * arrives. A callback is callable: cb(args) returns the result, or nil,
 * message, code when the callback fails.
 */
#include "internal.h"

typedef struct {
    sb_lua_closer closer; /* on its module's list: the close releases v if Lua does not */
    sb_value *v;          /* one reference, NULL once collected */
} cvalue;

static void release_cvalue(cvalue *cv) {
    sb_value *v = cv->v;
    cv->v = NULL;
    sb_value_release(v);
}

static void cvalue_close(lua_State *L, sb_lua_closer *closer) {
    (void)L;
    release_cvalue((cvalue *)closer);
}

void sb_lua_push_cvalue(lua_State *L, sb_lua_ctx *ctx, sb_value *v) {
    cvalue *cv = lua_newuserdatauv(L, sizeof *cv, 0);
    cv->v = NULL;
    cv->closer.next = cv->closer.prev = NULL;
    luaL_setmetatable(L, SB_LUA_VALUE);
    cv->v = sb_value_retain(v); /* only once nothing else here can raise */
    if (ctx != NULL) sb_lua_closer_add(ctx, &cv->closer, cvalue_close);
}

sb_value *sb_lua_test_cvalue(lua_State *L, int idx) {
    cvalue *cv = luaL_testudata(L, idx, SB_LUA_VALUE);
    return cv != NULL ? cv->v : NULL;
}

static sb_value *check_cvalue(lua_State *L, int idx) {
    cvalue *cv = luaL_checkudata(L, idx, SB_LUA_VALUE);
    if (cv->v == NULL) luaL_argerror(L, idx, "a collected switchboard value");
    return cv->v;
}

static int value_gc(lua_State *L) {
    cvalue *cv = luaL_checkudata(L, 1, SB_LUA_VALUE);
    sb_lua_closer_remove(&cv->closer);
    release_cvalue(cv);
    return 0;
}

/* cb(args): calls a callback made in C, Swift or Lua. */
static int value_call(lua_State *L) {
    sb_value *callback = check_cvalue(L, 1);
    if (sb_value_type(callback) != SB_CALLBACK) return luaL_error(L, "a switchboard pointer is not callable");
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    sb_value *args = NULL;
    if (!lua_isnoneornil(L, 2)) {
        sb_lua_conv conv;
        conv.ctx = ctx;
        args = sb_lua_to_value_safely(L, 2, &conv);
        if (args == NULL) return luaL_argerror(L, 2, conv.error);
    }
    sb_value *out = NULL;
    lua_State *previous = ctx->active;
    ctx->active = L;
    sb_status status = sb_callback_call(callback, args, &out);
    ctx->active = previous;
    sb_value_release(args);
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    sb_lua_push_result(L, ctx, out);
    return 1;
}

/* Equal when they carry the same callback or pointer, as sb_value_equal says
 * (a value that crossed Swift may arrive in a new box around it). */
static int value_eq(lua_State *L) {
    sb_value *a = sb_lua_test_cvalue(L, 1), *b = sb_lua_test_cvalue(L, 2);
    lua_pushboolean(L, a != NULL && b != NULL && sb_value_equal(a, b));
    return 1;
}

static int value_tostring(lua_State *L) {
    sb_value *v = check_cvalue(L, 1);
    if (sb_value_type(v) == SB_POINTER) {
        void *p = NULL;
        sb_value_get_pointer(v, &p);
        lua_pushfstring(L, "switchboard.pointer: %p", p);
    } else {
        lua_pushfstring(L, "switchboard.callback: %p", (void *)v);
    }
    return 1;
}

/* Creates the metatable once per state. __call needs the module context, so
 * it closes over the context box that is on top of the stack. */
void sb_lua_value_metatable(lua_State *L) {
    if (!luaL_newmetatable(L, SB_LUA_VALUE)) {
        lua_pop(L, 1);
        return;
    }
    lua_pushcfunction(L, value_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, value_eq);
    lua_setfield(L, -2, "__eq");
    lua_pushcfunction(L, value_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushvalue(L, -2); /* the context box */
    lua_pushcclosure(L, value_call, 1);
    lua_setfield(L, -2, "__call");
    /* Locked (see sb_lua_lock_metatable): getmetatable answers with a
     * copy of the public part, without __gc (calling it would free the
     * value under its owner); changing the copy changes nothing. */
    lua_createtable(L, 0, 4);
    lua_pushliteral(L, SB_LUA_VALUE);
    lua_setfield(L, -2, "__name");
    static const char *const shown[] = {"__call", "__eq", "__tostring"};
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
        lua_getfield(L, -2, shown[i]);
        lua_setfield(L, -2, shown[i]);
    }
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
}
