/*
 * The module table: require "switchboard" (bound to the shared mediator) or
 * sb_lua_open(L, m) (bound to any mediator).
 *
 *   sb.perform(target, action [, params [, opts]])  -> result | nil, message, code
 *   sb.target(name, actions)      registers Lua functions as actions -> true
 *   sb.unregister(name)           -> true | nil, message, code
 *   sb.evict(name)                drops a cached target instance -> true | nil, message, "ENOTFOUND"
 *   sb.load_plugin(path)          -> true | nil, message, code
 *   sb.poll([max])                runs calls queued by other threads, resumes coroutines
 *                                 whose calls ended -> count [, errors]
 *   sb.later(fn)                  an action's answer to come: fn(complete) (later.c)
 *   sb.fd()                       readable while work waits for sb.poll -> fd
 *   sb.pending()                  coroutines waiting for a call -> count (await.c)
 *   sb.array(t)                   marks t as an array (for the empty one) -> t
 *   sb.open(url [, params] [, completion])   the URL entry -> result | nil, message, code
 *   sb.scheme(name [, fn | false]) connects a scheme to targets, a handler, or nothing -> true
 *   sb.url_pattern(pattern, target, action | fn), sb.remove_url_pattern(pattern)
 *   (1.x names, kept as the same functions: sb.release, sb.route, sb.unroute)
 *   sb.routes()                   what the mediator can reach -> table
 *   sb.policy(t | nil)            {schemes = {...}, targets = {...}} for URLs -> true
 *   sb.on_rejected(fn | nil)      observes refused URL calls -> true
 *   sb.lookup, sb.build_url, sb.unmatched, sb.converter, sb.remove_url_patterns   (urls.c)
 *   sb.intercept(priority, fn [, opts]) -> id; sb.unintercept(id)   (hooks.c)
 *   sb.observe(fn) -> id; sb.unobserve(id); sb.rules(list | json); sb.degrade(fn | nil)
 *   sb.cancellation() -> token; sb.cancelled()
 *   perform/open opts: {cache =, bypass =, tags = {...}, cancel = token}
 *   (perform also fallback = false: SB_NO_FALLBACK)
 *   sb.null, sb.path, sb.version
 *
 * Misuse (a wrong argument type, an empty name) raises an error; a call that
 * fails returns nil, message, code, where code is the status name
 * ("ENOTARGET", ...), so `assert(sb.perform(...))` reads naturally.
 */
#include "internal.h"
#include "switchboard_sys.h" /* sb__queue_lend: face-internal */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int l_perform(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    const char *target = sb_lua_check_name(L, 1);
    const char *action = sb_lua_check_name(L, 2);
    int type = lua_type(L, 3);
    luaL_argexpected(L, type == LUA_TNONE || type == LUA_TNIL || type == LUA_TTABLE, 3, "table or nil");
    type = lua_type(L, 4);
    luaL_argexpected(L, type == LUA_TNONE || type == LUA_TNIL || type == LUA_TTABLE, 4, "table or nil");
    /* In a coroutine the call does not block the thread (await.c). */
    const int may_yield = sb_lua_may_yield(L, ctx);
    /* A Lua action of this state, called plainly: no C values (direct.c). */
    if (type != LUA_TTABLE && !may_yield) {
        int results = sb_lua_perform_direct(L, ctx, target, action);
        if (results >= 0) return results;
    }
    sb_call_options options;
    int with_options = sb_lua_call_options(L, 4, &options);
    sb_lua_waiter *waiter = may_yield ? sb_lua_waiter_new(L, ctx, 0) : NULL;
    sb_lua_conv conv; /* params stay charged while the call runs */
    sb_value *params = sb_lua_check_params(L, ctx, 3, &conv);
    sb_lua_drop_released(L, ctx);
    if (waiter != NULL) {
        return sb_lua_perform_yielding(L, waiter, SB_LUA_CALL_PERFORM, target, action, NULL, params, &options, &conv);
    }

    sb_value *out = NULL;
    lua_State *previous = ctx->active;
    ctx->active = L;
    sb_status status = with_options ? sb_action_perform_opts(ctx->m, target, action, params, &options, &out)
                                    : sb_action_perform(ctx->m, target, action, params, options.flags, &out);
    ctx->active = previous;
    sb_value_release(params);
    sb_lua_conv_uncharge(L, &conv);
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    sb_lua_push_result(L, ctx, out);
    return 1;
}

static int l_target(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    const char *name = sb_lua_check_name(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    char error[256];
    if (!sb_lua_register_table(L, ctx, name, 2, error, sizeof error)) return luaL_argerror(L, 2, error);
    memset(ctx->direct_misses, 0, sizeof ctx->direct_misses); /* its actions may be called directly now */
    lua_pushboolean(L, 1);
    return 1;
}

static int l_unregister(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    const char *name = sb_lua_check_name(L, 1);
    sb_status status = sb_target_unregister(ctx->m, name);
    sb_lua_uncharge_name(L, SB_LUA_CHARGE_TARGET, name);
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    lua_pushboolean(L, 1);
    return 1;
}

/* sb.evict(name): sb_target_evict. */
static int l_evict(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    sb_status status = sb_target_evict(ctx->m, sb_lua_check_name(L, 1));
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_load_plugin(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    size_t length;
    const char *path = luaL_checklstring(L, 1, &length);
    luaL_argcheck(L, length > 0 && strlen(path) == length, 1, "a path, without NUL bytes");
    sb_status status = sb_plugin_load(ctx->m, path);
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_poll(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    lua_Integer max = luaL_optinteger(L, 1, LUA_MAXINTEGER);
    luaL_argcheck(L, max >= 0, 1, "a count must not be negative");
    return sb_lua_poll(L, ctx, max);
}

/* sb.array(t): gives `t` the array marker as its metatable. A table with
 * a metatable of its own is refused: replacing it would change what the
 * table is to its maker (a locked metatable says so, and it is read raw
 * here, past any __metatable). */
static int l_array(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    sb_lua_push_array_mt(L);
    if (lua_getmetatable(L, 1)) {
        luaL_argcheck(L, lua_rawequal(L, -1, -2), 1, "the table has a metatable of its own");
        lua_pop(L, 1);
    }
    lua_setmetatable(L, 1);
    return 1;
}

/* A Lua function at `idx` as a new C callback value. */
static sb_value *function_value(lua_State *L, sb_lua_ctx *ctx, int idx) {
    sb_lua_fn *fn = sb_lua_fn_new(ctx, L, idx);
    if (fn == NULL) luaL_error(L, "switchboard: out of memory");
    sb_value *callback = sb_callback_new(sb_lua_fn_call, fn, sb_lua_fn_free);
    if (callback == NULL) luaL_error(L, "switchboard: out of memory");
    return callback;
}

/* The longest URL the library takes (switchboard.h: 64 KiB or more is
 * SB_EBADURL). Checked first, before anything reads the whole string. */
#define URL_MAX 65535

static int url_too_long(lua_State *L, size_t length, sb_status status) {
    sb_error_set("the URL is %zu bytes; the limit is %d", length, URL_MAX);
    return sb_lua_push_failure(L, status);
}

/* sb.open(url [, params] [, completion]) */
static int l_open(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    size_t length;
    const char *url = luaL_checklstring(L, 1, &length);
    if (length > URL_MAX) return url_too_long(L, length, SB_EBADURL);
    luaL_argcheck(L, strlen(url) == length, 1, "the URL contains a NUL byte");
    int completion_at = 2;
    if (lua_type(L, 2) == LUA_TTABLE || (lua_isnil(L, 2) && !lua_isnone(L, 3))) completion_at = 3;
    int type = lua_type(L, completion_at);
    luaL_argexpected(L, type == LUA_TNONE || type == LUA_TNIL || type == LUA_TFUNCTION, completion_at, "function or nil");
    sb_call_options options = SB_CALL_OPTIONS_INIT;
    /* Flags alone ({cache = true}) are options too: dropped, they were
     * ignored without a word. */
    int with_options = completion_at == 3 && (sb_lua_call_options(L, 4, &options) || options.flags != 0);
    luaL_argcheck(L, !(options.flags & SB_NO_FALLBACK), 4,
                  "fallback = false is for sb.perform and sb.perform_service: a URL call keeps its fallbacks");
    luaL_argcheck(L, !with_options || type != LUA_TFUNCTION, 4, "options (tags, bypass, cancel, cache) do not combine with a completion");
    /* In a coroutine the call does not block the thread (await.c); a
     * completion is called there before sb.open returns. */
    sb_lua_waiter *waiter = NULL;
    if (sb_lua_may_yield(L, ctx)) waiter = sb_lua_waiter_new(L, ctx, type == LUA_TFUNCTION ? completion_at : 0);
    sb_value *params = completion_at == 3 ? sb_lua_opt_table(L, ctx, 2, NULL) : NULL;
    if (waiter != NULL) {
        sb_lua_drop_released(L, ctx);
        return sb_lua_perform_yielding(L, waiter, SB_LUA_CALL_URL, NULL, NULL, url, params, &options, NULL);
    }
    sb_value *completion = type == LUA_TFUNCTION ? function_value(L, ctx, completion_at) : NULL;
    sb_lua_drop_released(L, ctx);
    sb_value *out = NULL;
    lua_State *previous = ctx->active;
    ctx->active = L;
    sb_url_options open = SB_URL_OPTIONS_INIT;
    open.params = params;
    open.completion = completion;
    open.call = with_options ? &options : NULL;
    sb_status status = sb_url_open(ctx->m, url, &open, &out);
    ctx->active = previous;
    sb_value_release(params);
    sb_value_release(completion);
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    sb_lua_push_result(L, ctx, out);
    return 1;
}

/* What the library keeps for a name registered from Lua (see charge.c). */
static long long name_cost(const char *name) {
    return SB_LUA_REGISTRATION_COST + SB_LUA_NAME_COPIES * (long long)strlen(name);
}

/* A scheme's handler is remembered under the scheme in lower case (as the
 * mediator keeps it), a pattern's under the pattern, before it is given to
 * the mediator; closing the state removes it if it is still this state's.
 * NULL when out of memory (fn is then freed). */
static sb_lua_fn *remembered_handler(lua_State *L, sb_lua_ctx *ctx, char kind, const char *name, int idx) {
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (const char *c = name; *c != '\0'; c++) {
        luaL_addchar(&b, kind == SB_LUA_SCHEME_HANDLER ? (char)tolower((unsigned char)*c) : *c);
    }
    luaL_pushresult(&b);
    sb_lua_fn *fn = sb_lua_fn_new(ctx, L, idx);
    if (fn != NULL && !sb_lua_remember(ctx, kind, lua_tostring(L, -1), "", fn)) {
        sb_lua_fn_free(fn);
        fn = NULL;
    }
    lua_pop(L, 1);
    return fn;
}

/* sb.scheme(name) connects to targets; sb.scheme(name, fn) to a handler;
 * sb.scheme(name, false) disconnects. */
static int l_scheme(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    const char *name = sb_lua_check_name(L, 1);
    lua_settop(L, 2);
    /* charged under the name the mediator keeps: in lower case */
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (const char *c = name; *c != '\0'; c++) luaL_addchar(&b, (char)tolower((unsigned char)*c));
    luaL_pushresult(&b);
    const char *key = lua_tostring(L, -1);
    sb_status status;
    if (lua_isnoneornil(L, 2)) {
        status = sb_scheme_register(ctx->m, name, NULL, NULL, NULL);
    } else if (lua_isboolean(L, 2) && !lua_toboolean(L, 2)) {
        status = sb_scheme_unregister(ctx->m, name);
        sb_lua_uncharge_name(L, SB_LUA_CHARGE_SCHEME, key);
        if (status != SB_OK) return sb_lua_push_failure(L, status);
        lua_pushboolean(L, 1);
        return 1;
    } else {
        luaL_checktype(L, 2, LUA_TFUNCTION);
        sb_lua_fn *fn = remembered_handler(L, ctx, SB_LUA_SCHEME_HANDLER, name, 2);
        if (fn == NULL) return luaL_error(L, "switchboard: out of memory");
        status = sb_scheme_register(ctx->m, name, sb_lua_action_call, fn, sb_lua_fn_free);
    }
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    sb_lua_recharge_or_raise(L, SB_LUA_CHARGE_SCHEME, key, name_cost(key));
    lua_pushboolean(L, 1);
    return 1;
}

/* sb.url_pattern(pattern, target, action) or sb.url_pattern(pattern, fn): a
 * Lua handler is added with sb_url_pattern_add_handler (no name reaches it). */
static int l_url_pattern(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    const char *pattern = sb_lua_check_name(L, 1);
    sb_status status;
    if (lua_type(L, 2) == LUA_TFUNCTION) {
        sb_lua_fn *fn = remembered_handler(L, ctx, SB_LUA_ROUTE_HANDLER, pattern, 2);
        if (fn == NULL) return luaL_error(L, "switchboard: out of memory");
        status = sb_url_pattern_add_handler(ctx->m, pattern, sb_lua_action_call, fn, sb_lua_fn_free);
    } else {
        status = sb_url_pattern_add(ctx->m, pattern, sb_lua_check_name(L, 2), sb_lua_check_name(L, 3));
    }
    if (status == SB_OK) sb_lua_recharge_or_raise(L, SB_LUA_CHARGE_PATTERN, pattern, name_cost(pattern));
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    lua_pushboolean(L, 1);
    return 1;
}

/* sb.remove_url_pattern(pattern): sb_url_pattern_remove. */
static int l_remove_url_pattern(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    const char *pattern = sb_lua_check_name(L, 1);
    sb_status status = sb_url_pattern_remove(ctx->m, pattern);
    sb_lua_uncharge_name(L, SB_LUA_CHARGE_PATTERN, pattern);
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_routes(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    sb_value *out = NULL;
    sb_status status = sb_routes(ctx->m, &out);
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    sb_lua_push_result(L, ctx, out);
    return 1;
}

static int l_policy(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    size_t converted = 0;
    sb_value *policy = sb_lua_opt_table(L, ctx, 1, &converted);
    long long cost = policy != NULL ? SB_LUA_REGISTRATION_COST + (long long)converted : 0;
    sb_status status = sb_url_set_policy(ctx->m, policy);
    sb_value_release(policy);
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    sb_lua_recharge_or_raise(L, SB_LUA_CHARGE_POLICY, "", cost); /* the policy replaces the last */
    lua_pushboolean(L, 1);
    return 1;
}

/* sb.require_signed_urls(key): every URL opened must be signed with `key`
 * (a string of at least 16 bytes); sb.require_signed_urls(nil) stops it. */
static int l_require_signed_urls(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    size_t len = 0;
    const char *key = lua_isnoneornil(L, 1) ? NULL : luaL_checklstring(L, 1, &len);
    sb_status status = sb_url_require_signature(ctx->m, key, len);
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    lua_pushboolean(L, 1);
    return 1;
}

static int push_cstring(lua_State *L) {
    lua_pushstring(L, lua_touserdata(L, 1));
    return 1;
}

/* sb.sign_url(key, url, expires): the URL with expires and its signature.
 * The string is pushed in a protected call, so a memory error cannot leak
 * the C copy. */
static int l_sign_url(lua_State *L) {
    size_t len = 0;
    size_t url_length;
    const char *key = luaL_checklstring(L, 1, &len);
    const char *url = luaL_checklstring(L, 2, &url_length);
    if (url_length > URL_MAX) return url_too_long(L, url_length, SB_EINVAL); /* as sb_url_sign */
    luaL_argcheck(L, strlen(url) == url_length, 2, "the URL contains a NUL byte");
    lua_Integer expires = luaL_checkinteger(L, 3);
    char *signed_url = sb_url_sign(key, len, url, (int64_t)expires);
    if (signed_url == NULL) return sb_lua_push_failure(L, SB_EINVAL);
    lua_pushcfunction(L, push_cstring);
    lua_pushlightuserdata(L, signed_url);
    int rc = lua_pcall(L, 1, 1, 0);
    sb_memory_free(signed_url);
    if (rc != LUA_OK) return lua_error(L);
    return 1;
}

static int l_on_rejected(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    sb_status status;
    if (lua_isnoneornil(L, 1)) {
        status = sb_url_set_observer(ctx->m, NULL, NULL, NULL);
    } else {
        luaL_checktype(L, 1, LUA_TFUNCTION);
        sb_lua_fn *fn = sb_lua_fn_new(ctx, L, 1);
        if (fn == NULL) return luaL_error(L, "switchboard: out of memory");
        status = sb_url_set_observer(ctx->m, sb_lua_fn_call, fn, sb_lua_fn_free);
    }
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    lua_pushboolean(L, 1);
    return 1;
}

/* sb.fd(): a descriptor that is readable while work waits for sb.poll(). */
static int l_fd(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    int fd = -1;
    sb_status status = sb_queue_fd(ctx->queue, &fd);
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    lua_pushinteger(L, fd);
    return 1;
}

/* sb.pending(): how many calls' answers are still to be delivered. */
static int l_pending(lua_State *L) {
    lua_pushinteger(L, sb_lua_pending_count(sb_lua_ctx_of(L)));
    return 1;
}

static const luaL_Reg functions[] = {
    {"perform", l_perform},
    {"perform_async", sb_lua_perform_async},
    {"later", sb_lua_later},
    {"fd", l_fd},
    {"pending", l_pending},
    {"target", l_target},
    {"unregister", l_unregister},
    {"evict", l_evict},
    {"load_plugin", l_load_plugin},
    {"poll", l_poll},
    {"array", l_array},
    {"open", l_open},
    {"scheme", l_scheme},
    {"url_pattern", l_url_pattern},
    {"remove_url_pattern", l_remove_url_pattern},
    {"routes", l_routes},
    {"policy", l_policy},
    {"on_rejected", l_on_rejected},
    {"require_signed_urls", l_require_signed_urls},
    {"sign_url", l_sign_url},
    {NULL, NULL},
};

/* The names 1.x gave (a route was also a prepared call, and "release" also
 * meant letting go of memory): each is the same function as its new name. */
static const struct {
    const char *old, *current;
} renamed[] = {
    {"release", "evict"},
    {"route", "url_pattern"},
    {"unroute", "remove_url_pattern"},
};

static void context_metatable(lua_State *L) {
    if (luaL_newmetatable(L, SB_LUA_CONTEXT)) {
        lua_pushcfunction(L, sb_lua_close);
        lua_setfield(L, -2, "__gc");
        sb_lua_lock_metatable(L, SB_LUA_CONTEXT);
    }
    lua_pop(L, 1);
}

static void release_ctx(void *ctx) {
    sb_lua_ctx_release(ctx);
}

int sb_lua_open(lua_State *L, sb_mediator *m) {
    luaL_checkversion(L);
    if (m == NULL) return luaL_error(L, "sb_lua_open: NULL mediator");
    /* Inside a __gc finalizer (where lua_gc answers -1, from Lua 5.4.4 on)
     * the state may be closing, and Lua then marks nothing for finalization:
     * this module's context would never close, and what it registered would
     * outlive the state (a C call of it would run a freed state). */
    if (lua_gc(L, LUA_GCISRUNNING) < 0) {
        return luaL_error(L, "switchboard: the module cannot be opened inside a __gc finalizer "
                             "(the state may be closing, and could not close it)");
    }
    sb_lua_pin_libraries();
    context_metatable(L);

    /* The box first: if anything below raises, its __gc cleans up. */
    sb_lua_ctx **box = lua_newuserdatauv(L, sizeof *box, 0);
    *box = NULL;
    luaL_setmetatable(L, SB_LUA_CONTEXT);
    sb_lua_ctx *ctx = calloc(1, sizeof *ctx);
    if (ctx == NULL || pthread_mutex_init(&ctx->lock, NULL) != 0) {
        free(ctx);
        return luaL_error(L, "switchboard: out of memory");
    }
    /* The state's queue belongs to this thread, the state's. */
    if (sb_queue_new(&ctx->queue) != SB_OK) {
        pthread_mutex_destroy(&ctx->lock);
        free(ctx);
        return luaL_error(L, "switchboard: out of memory");
    }
    sb__queue_lend(ctx->queue, 1); /* sb_lua_queue lends it; lua_close frees it */
    ctx->errors_ref = LUA_NOREF;
    ctx->closers.prev = ctx->closers.next = &ctx->closers;
    ctx->refs = 1; /* the box */
    ctx->owner = pthread_self();
    ctx->m = m;
    ctx->module_ref = LUA_NOREF;
    ctx->orders_ref = LUA_NOREF;
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
    ctx->L = lua_tothread(L, -1);
    lua_pop(L, 1);
    *box = ctx;

    sb_lua_value_metatable(L); /* its __call closes over the box on top */
    luaL_newlibtable(L, functions);
    lua_pushvalue(L, -2);
    luaL_setfuncs(L, functions, 1);
    lua_pushvalue(L, -2);
    luaL_setfuncs(L, sb_lua_hook_functions, 1);
    lua_pushvalue(L, -2);
    luaL_setfuncs(L, sb_lua_service_functions, 1);
    lua_pushvalue(L, -2);
    luaL_setfuncs(L, sb_lua_url_functions, 1);
    for (size_t i = 0; i < sizeof renamed / sizeof renamed[0]; i++) {
        lua_getfield(L, -1, renamed[i].current);
        lua_setfield(L, -2, renamed[i].old);
    }
    lua_pushstring(L, sb_version());
    lua_setfield(L, -2, "version");
    lua_pushlightuserdata(L, (void *)&sb_lua_null);
    lua_setfield(L, -2, "null");
    lua_pushliteral(L, "./?.lua");
    lua_setfield(L, -2, "path");
    lua_pushvalue(L, -1);
    ctx->module_ref = luaL_ref(L, LUA_REGISTRYINDEX);

    /* Target_<Name>.lua discovery; the discoverer holds its own reference. */
    pthread_mutex_lock(&ctx->lock);
    ctx->refs++;
    pthread_mutex_unlock(&ctx->lock);
    if (sb_discoverer_add(m, sb_lua_discover, ctx, release_ctx, &ctx->discoverer) != SB_OK) {
        ctx->discoverer = 0; /* release_ctx already ran */
    }
    lua_remove(L, -2); /* the box: the functions' upvalues keep it */
    return 1;
}

sb_queue *sb_lua_queue(lua_State *L, int idx) {
    /* The module's functions hold its context box as their first upvalue. */
    if (lua_type(L, idx) != LUA_TTABLE || !lua_checkstack(L, 2)) return NULL;
    lua_getfield(L, idx, "poll");
    sb_queue *queue = NULL;
    if (lua_tocfunction(L, -1) == l_poll && lua_getupvalue(L, -1, 1) != NULL) {
        sb_lua_ctx **box = luaL_testudata(L, -1, SB_LUA_CONTEXT);
        if (box != NULL && *box != NULL) queue = (*box)->queue;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return queue;
}

int luaopen_switchboard(lua_State *L) {
    return sb_lua_open(L, sb_mediator_shared());
}
