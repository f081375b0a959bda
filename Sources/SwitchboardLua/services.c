/*
 * Named services (include/switchboard.h, "services"): an interface — action
 * names with contracts — that callers ask for by its name, and a binding to
 * the target that implements it.
 *
 *   sb.service(name, interface)          defines it -> true | nil, message, code
 *   sb.bind_service(name, target | nil)  binds (checked) or unbinds it -> true | nil, message, code
 *   sb.perform_service(name, action [, params [, opts]])  -> result | nil, message, code
 *   sb.remove_service(name)              -> true | nil, message, code
 *
 * perform_service takes the opts of sb.perform that sb_service_perform has:
 * {cache =, fallback =}.
 */
#include "internal.h"

#include <string.h>

static int done(lua_State *L, sb_status status) {
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    lua_pushboolean(L, 1);
    return 1;
}

/* What the library keeps for a service defined from Lua (see charge.c):
 * charged before it is defined, so a state over its memory budget defines
 * nothing; on success it replaces the charge of an earlier definition. */
static int l_service(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    const char *name = sb_lua_check_name(L, 1);
    size_t length;
    const char *interface = luaL_checklstring(L, 2, &length);
    luaL_argcheck(L, strlen(interface) == length, 2, "interface contains a NUL byte");
    long long cost = SB_LUA_REGISTRATION_COST + SB_LUA_NAME_COPIES * ((long long)strlen(name) + (long long)length);
    if (!sb_lua_charge_name(L, SB_LUA_CHARGE_SERVICE, name, cost)) {
        return luaL_error(L, "not enough memory: the Lua state's memory budget is spent");
    }
    sb_status status = sb_service_define(ctx->m, name, interface);
    if (status != SB_OK) {
        (void)sb_lua_charge_name(L, SB_LUA_CHARGE_SERVICE, name, -cost);
        return sb_lua_push_failure(L, status);
    }
    /* The earlier definition and its binding are gone: this one's charge alone. */
    sb_lua_uncharge_name(L, SB_LUA_CHARGE_BINDING, name);
    sb_lua_recharge_or_raise(L, SB_LUA_CHARGE_SERVICE, name, cost);
    return done(L, SB_OK);
}

static int l_bind_service(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    const char *name = sb_lua_check_name(L, 1);
    const char *target = lua_isnoneornil(L, 2) ? NULL : sb_lua_check_name(L, 2);
    long long cost = target != NULL ? SB_LUA_NAME_COPIES * (long long)strlen(target) : 0;
    if (!sb_lua_charge_name(L, SB_LUA_CHARGE_BINDING, name, cost)) {
        return luaL_error(L, "not enough memory: the Lua state's memory budget is spent");
    }
    sb_lua_drop_released(L, ctx);
    lua_State *previous = ctx->active;
    ctx->active = L; /* binding may load a Target_<Name>.lua file */
    sb_status status = sb_service_bind(ctx->m, name, target);
    ctx->active = previous;
    if (status != SB_OK) {
        (void)sb_lua_charge_name(L, SB_LUA_CHARGE_BINDING, name, -cost);
        return sb_lua_push_failure(L, status);
    }
    sb_lua_recharge_or_raise(L, SB_LUA_CHARGE_BINDING, name, cost); /* replaces the last binding's */
    return done(L, SB_OK);
}

static int l_remove_service(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    const char *name = sb_lua_check_name(L, 1);
    sb_status status = sb_service_remove(ctx->m, name);
    sb_lua_uncharge_name(L, SB_LUA_CHARGE_SERVICE, name);
    sb_lua_uncharge_name(L, SB_LUA_CHARGE_BINDING, name);
    return done(L, status);
}

static int l_perform_service(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    const char *name = sb_lua_check_name(L, 1);
    const char *action = sb_lua_check_name(L, 2);
    int type = lua_type(L, 3);
    luaL_argexpected(L, type == LUA_TNONE || type == LUA_TNIL || type == LUA_TTABLE, 3, "table or nil");
    type = lua_type(L, 4);
    luaL_argexpected(L, type == LUA_TNONE || type == LUA_TNIL || type == LUA_TTABLE, 4, "table or nil");
    sb_call_options options;
    luaL_argcheck(L, !sb_lua_call_options(L, 4, &options), 4, "perform_service takes only {cache =, fallback =}");
    /* In a coroutine the call does not block the thread (await.c). */
    sb_lua_waiter *waiter = sb_lua_may_yield(L, ctx) ? sb_lua_waiter_new(L, ctx, 0) : NULL;
    sb_lua_conv conv; /* params stay charged while the call runs */
    sb_value *params = sb_lua_check_params(L, ctx, 3, &conv);
    sb_lua_drop_released(L, ctx);
    if (waiter != NULL) {
        return sb_lua_perform_yielding(L, waiter, SB_LUA_CALL_SERVICE, name, action, NULL, params, &options, &conv);
    }
    sb_value *out = NULL;
    lua_State *previous = ctx->active;
    ctx->active = L;
    sb_status status = sb_service_perform(ctx->m, name, action, params, options.flags, &out);
    ctx->active = previous;
    sb_value_release(params);
    sb_lua_conv_uncharge(L, &conv);
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    sb_lua_push_result(L, ctx, out);
    return 1;
}

const luaL_Reg sb_lua_service_functions[] = {
    {"service", l_service},
    {"bind_service", l_bind_service},
    {"perform_service", l_perform_service},
    {"remove_service", l_remove_service},
    {NULL, NULL},
};
