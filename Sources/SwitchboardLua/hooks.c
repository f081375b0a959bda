/*
 * Interceptors, observers, rules, the degrade handler and call options for
 * Lua (sb.intercept, sb.observe, sb.rules, sb.degrade, perform/open options).
 *
 * A Lua interceptor is a C interceptor whose userdata holds a callback value
 * wrapping `trampoline` (a C closure over the user's function). The call is
 * handed to it as a table with a hidden `complete` callback bound to the
 * sb_call. On the state's own thread it runs at once; from another thread it
 * is queued (SB_EQUEUED), the C interceptor answers SB_INTERCEPT_PENDING, and
 * sb.poll() runs it later, within the interceptor's timeout. The trampoline
 * always decides: a Lua error becomes a failure naming the interceptor.
 *
 * Decisions, as the function's return values (or complete's arguments):
 *   nothing | "continue" [, params]      go on (with these params)
 *   "redirect", target, action [, params]
 *   "reject", message [, code]           code defaults to "EREJECTED"
 *   "answer", value
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ decisions */

/* Sets `key` of `d` to the Lua string at `idx`, byte for byte. It must be
 * UTF-8 and, for a name (`name` set), non-empty and free of NUL bytes: a name
 * is never cut short or repaired into another. 0 with `error` set if not. */
static int set_text(lua_State *L, int idx, sb_value *d, const char *key, int name, char *error, size_t size) {
    size_t length;
    const char *text = lua_tolstring(L, idx, &length);
    if (name && (length == 0 || strlen(text) != length)) {
        snprintf(error, size, "the %s of a decision must be a non-empty name without NUL bytes", key);
        return 0;
    }
    sb_value *v = sb_string_n(text, length);
    if (v == NULL) {
        snprintf(error, size, "the %s of a decision is not valid UTF-8", key);
        return 0;
    }
    if (sb_dict_set_new(d, key, v) != SB_OK) {
        snprintf(error, size, "%s", sb_error_message());
        return 0;
    }
    return 1;
}

/* The decision at stack slots first..first+n-1 as a dict for `complete`, or
 * NULL with a message in `error`. */
static sb_value *decision_value(lua_State *L, sb_lua_ctx *ctx, int first, int n, char *error, size_t size) {
    const char *kind = "continue";
    if (n > 0 && !lua_isnil(L, first)) {
        size_t length;
        if (lua_type(L, first) != LUA_TSTRING) {
            snprintf(error, size, "an interceptor's decision is a string, not a %s", luaL_typename(L, first));
            return NULL;
        }
        kind = lua_tolstring(L, first, &length);
        if (strlen(kind) != length) {
            snprintf(error, size, "an interceptor's decision contains a NUL byte");
            return NULL;
        }
    }
    sb_value *d = sb_dict_new();
    if (d == NULL) {
        snprintf(error, size, "out of memory");
        return NULL;
    }
    int params_at = 0, ok = sb_dict_set_new(d, "decision", sb_string(kind)) == SB_OK;
    if (!ok) {
        snprintf(error, size, "%s", sb_error_message());
    } else if (strcmp(kind, "continue") == 0) {
        params_at = first + 1;
    } else if (strcmp(kind, "redirect") == 0) {
        ok = n >= 3 && lua_type(L, first + 1) == LUA_TSTRING && lua_type(L, first + 2) == LUA_TSTRING;
        if (ok) {
            ok = set_text(L, first + 1, d, "target", 1, error, size) && set_text(L, first + 2, d, "action", 1, error, size);
            params_at = first + 3;
        } else {
            snprintf(error, size, "\"redirect\" needs a target and an action (strings)");
        }
    } else if (strcmp(kind, "reject") == 0) {
        if (n >= 2 && lua_type(L, first + 1) == LUA_TSTRING) ok = set_text(L, first + 1, d, "message", 0, error, size);
        if (ok && n >= 3 && lua_type(L, first + 2) == LUA_TSTRING) ok = set_text(L, first + 2, d, "code", 1, error, size);
    } else if (strcmp(kind, "answer") == 0) {
        if (n >= 2 && !lua_isnil(L, first + 1)) {
            sb_lua_conv conv;
            conv.ctx = ctx;
            sb_value *v = sb_lua_to_value_safely(L, first + 1, &conv);
            if (v == NULL) {
                snprintf(error, size, "the answer cannot be passed on: %.200s", conv.error);
                ok = 0;
            } else {
                sb_dict_set_new(d, "value", v);
            }
        }
    } else {
        snprintf(error, size, "unknown decision \"%s\" (continue, redirect, reject or answer)", kind);
        ok = 0;
    }
    if (ok && params_at != 0 && params_at < first + n && !lua_isnil(L, params_at)) {
        sb_lua_conv conv;
        conv.ctx = ctx;
        sb_value *p = lua_type(L, params_at) == LUA_TTABLE ? sb_lua_to_value_safely(L, params_at, &conv) : NULL;
        if (p == NULL || sb_value_type(p) != SB_DICT) {
            snprintf(error, size, "the params of a decision must be a table with string keys");
            sb_value_release(p);
            ok = 0;
        } else {
            sb_dict_set_new(d, "params", p);
        }
    }
    if (!ok) {
        sb_value_release(d);
        return NULL;
    }
    return d;
}

/* A failure decision (the interceptor raised or decided nonsense). */
static sb_value *failure_value(const char *message) {
    sb_value *d = sb_dict_new();
    sb_dict_set_new(d, "decision", sb_string("fail"));
    sb_dict_set_new(d, "message", sb_string(message));
    return d;
}

/* ------------------------------------------------------------- complete */

/* The userdata of a call's `complete` callback. `done` makes sure the
 * sb_call is decided once through it: after that it may be gone. */
typedef struct completer {
    sb_call *call;
    int done;
} completer;

static sb_status complete_call(void *userdata, const sb_value *d, sb_value **out) {
    completer *c = userdata;
    if (__atomic_exchange_n(&c->done, 1, __ATOMIC_ACQ_REL)) {
        sb_error_set("this call was already decided; the decision is ignored");
        return SB_EINVAL;
    }
    sb_call *call = c->call;
    const char *kind = sb_value_get_string(sb_dict_get(d, "decision"), NULL);
    const char *message = sb_value_get_string(sb_dict_get(d, "message"), NULL);
    sb_value *params = sb_dict_get(d, "params");
    sb_status status;
    if (kind == NULL || strcmp(kind, "continue") == 0) {
        status = params != NULL ? sb_call_redirect(call, NULL, NULL, params) : sb_call_proceed(call);
    } else if (strcmp(kind, "redirect") == 0) {
        status = sb_call_redirect(call, sb_value_get_string(sb_dict_get(d, "target"), NULL),
                                  sb_value_get_string(sb_dict_get(d, "action"), NULL), params);
    } else if (strcmp(kind, "reject") == 0) {
        const char *code = sb_value_get_string(sb_dict_get(d, "code"), NULL);
        status = sb_call_reject(call, code != NULL ? sb_lua_status_from_name(code) : SB_EREJECTED, message);
    } else if (strcmp(kind, "answer") == 0) {
        status = sb_call_answer(call, sb_dict_get(d, "value"));
    } else {
        char text[512];
        snprintf(text, sizeof text, "interceptor \"%s\" failed: %s", sb_call_interceptor(call),
                 message != NULL ? message : "?");
        status = sb_call_reject(call, SB_EACTION, text);
    }
    if (status == SB_OK && out != NULL) *out = sb_bool(1);
    return status;
}

/* -------------------------------------------------------- the trampoline */

/* complete(...) as Lua sees it: upvalue 1 the context box, 2 the callback. */
static int l_complete(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    sb_value *callback = sb_lua_test_cvalue(L, lua_upvalueindex(2));
    char error[256];
    sb_value *d = decision_value(L, ctx, 1, lua_gettop(L), error, sizeof error);
    if (d == NULL) return luaL_error(L, "%s", error);
    sb_value *out = NULL;
    sb_status status = sb_callback_call(callback, d, &out);
    sb_value_release(d);
    sb_value_release(out);
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    lua_pushboolean(L, 1);
    return 1;
}

/* Called with the call table; upvalues: 1 the context box, 2 the user's
 * function, 3 whether it is asynchronous. Never raises past its pcall. */
static int trampoline(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "complete"); /* 2: the callback, hidden from the user */
    sb_value *callback = sb_lua_test_cvalue(L, 2);
    if (callback == NULL) return luaL_error(L, "switchboard: an interceptor call without its completion");
    lua_pushnil(L);
    lua_setfield(L, 1, "complete");
    int async = lua_toboolean(L, lua_upvalueindex(3));
    int base = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_pushvalue(L, 1);
    if (async) {
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_pushvalue(L, 2);
        lua_pushcclosure(L, l_complete, 2);
    }
    sb_value *d;
    if (lua_pcall(L, async ? 2 : 1, async ? 0 : LUA_MULTRET, 0) != LUA_OK) {
        const char *message = lua_tostring(L, -1);
        d = failure_value(message != NULL ? message : "(an error that is not a string)");
    } else if (async) {
        return 0; /* it decides through complete */
    } else {
        char error[256];
        d = decision_value(L, ctx, base + 1, lua_gettop(L) - base, error, sizeof error);
        if (d == NULL) d = failure_value(error);
    }
    sb_value *out = NULL;
    sb_callback_call(callback, d, &out);
    sb_value_release(d);
    sb_value_release(out);
    return 0;
}

/* ------------------------------------------------------ the C interceptor */

typedef struct lua_interceptor {
    sb_value *trampoline; /* a callback into Lua */
    int async;
} lua_interceptor;

static void interceptor_free(void *userdata) {
    lua_interceptor *li = userdata;
    sb_value_release(li->trampoline);
    free(li);
}

/* The callback is let go: its Lua function was collected, or its state
 * closed. A call it never decided could only wait for the interceptor's
 * timeout: it is rejected now instead. A finalizer runs at any allocation,
 * so the thread's message is kept as it was. */
static void completer_free(void *userdata) {
    completer *c = userdata;
    if (!__atomic_exchange_n(&c->done, 1, __ATOMIC_ACQ_REL)) {
        const char *last = sb_error_message();
        char *kept = malloc(strlen(last) + 1);
        if (kept != NULL) strcpy(kept, last);
        const char *name = sb_call_interceptor(c->call);
        char why[320];
        snprintf(why, sizeof why, "interceptor \"%s\" can no longer decide: its complete function was let go "
                 "undecided (collected, or its Lua state closed)", name != NULL ? name : "?");
        (void)sb_call_reject(c->call, SB_ECANCELED, why);
        if (kept != NULL) {
            sb_error_set("%s", kept);
            free(kept);
        }
    }
    free(c);
}

static int intercept(void *userdata, sb_call *call) {
    lua_interceptor *li = userdata;
    completer *c = calloc(1, sizeof *c);
    sb_value *args = sb_dict_new();
    sb_value *complete = c != NULL ? sb_callback_new(complete_call, c, completer_free) : NULL;
    if (complete == NULL) {
        if (c != NULL && complete == NULL) free(c);
        sb_value_release(args);
        sb_error_set("out of memory");
        return SB_ENOMEM;
    }
    c->call = call;
    sb_dict_set_new(args, "target", sb_string(sb_call_target(call)));
    sb_dict_set_new(args, "action", sb_string(sb_call_action(call)));
    if (sb_call_url(call) != NULL) sb_dict_set_new(args, "url", sb_string(sb_call_url(call)));
    sb_dict_set(args, "params", (sb_value *)sb_call_params(call));
    sb_value *tags = sb_array_new();
    for (size_t i = 0; i < sb_call_tag_count(call); i++) sb_array_append_new(tags, sb_string(sb_call_tag(call, i)));
    sb_dict_set_new(args, "tags", tags);
    sb_dict_set_new(args, "cancelled", sb_bool(sb_call_cancelled(call)));
    sb_dict_set_new(args, "interceptor", sb_string(sb_call_interceptor(call)));
    sb_dict_set_new(args, "complete", complete);
    sb_value *out = NULL;
    sb_status status = sb_callback_call(li->trampoline, args, &out);
    sb_value_release(out);
    if (status == SB_EQUEUED) { /* sb.poll() runs it */
        sb_value_release(args);
        return SB_INTERCEPT_PENDING;
    }
    if (status != SB_OK) {
        /* It never ran: nobody else will decide through `complete`. */
        __atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
        sb_value_release(args);
        return status;
    }
    /* It ran here, on the state's thread, and decides later: only this
     * thread can run `complete`. A caller that does not wait (a coroutine's
     * sb.perform, an asynchronous call) is pending until it does, and the
     * call goes on from there. One that waits here would wait for the
     * whole timeout, the state's timers frozen: it fails at once instead
     * (the call's `complete` then decides nothing). */
    if (li->async && sb_call_caller_waits(call) && !__atomic_exchange_n(&c->done, 1, __ATOMIC_ACQ_REL)) {
        sb_value_release(args);
        sb_error_set("interceptor \"%s\" decides later (async) from its Lua state's thread, which is the thread "
                     "this call would wait on: the decision could never come in time; call from a coroutine "
                     "(which waits without the thread) or from another thread, or decide before the interceptor "
                     "returns", sb_call_interceptor(call));
        return SB_EWOULDBLOCK;
    }
    sb_value_release(args);
    return li->async ? SB_INTERCEPT_PENDING : SB_OK;
}

/* The charge of an interceptor or observer (see charge.c), under its id.
 * Refused: it is removed again, and the memory error raised. */
static void charge_hook(lua_State *L, sb_lua_ctx *ctx, char kind, uint64_t id, long long bytes) {
    char key[24];
    snprintf(key, sizeof key, "%llu", (unsigned long long)id);
    if (sb_lua_charge_name(L, kind == 'i' ? SB_LUA_CHARGE_INTERCEPTOR : SB_LUA_CHARGE_OBSERVER, key, bytes)) return;
    if (kind == 'i') {
        (void)sb_interceptor_remove(ctx->m, id);
    } else {
        (void)sb_observer_remove(ctx->m, id);
    }
    sb_lua_forget_hook(ctx, kind, id);
    luaL_error(L, "not enough memory: the Lua state's memory budget is spent");
}

/* sb.intercept(priority, fn [, {name =, timeout = seconds, async =}]) -> id */
static int l_intercept(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    lua_Integer priority = luaL_checkinteger(L, 1);
    luaL_argcheck(L, priority >= -1000000 && priority <= 1000000, 1, "priority out of range (-1e6..1e6)");
    luaL_checktype(L, 2, LUA_TFUNCTION);
    const char *name = NULL;
    double timeout = 0;
    int async = 0;
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        lua_getfield(L, 3, "name");
        luaL_argcheck(L, lua_isnil(L, -1) || lua_type(L, -1) == LUA_TSTRING, 3, "name must be a non-empty string");
        name = lua_tostring(L, -1);
        luaL_argcheck(L, name == NULL || name[0] != '\0', 3, "name must be a non-empty string");
        lua_getfield(L, 3, "timeout");
        luaL_argcheck(L, lua_isnil(L, -1) || lua_type(L, -1) == LUA_TNUMBER, 3, "timeout must be a number of seconds");
        timeout = lua_tonumber(L, -1);
        luaL_argcheck(L, lua_isnil(L, -1) || (timeout > 0 && timeout <= 86400), 3, "timeout must be > 0 and at most a day");
        lua_getfield(L, 3, "async");
        async = lua_toboolean(L, -1);
        lua_pop(L, 1); /* name and timeout stay: `name` points into them */
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 2);
    lua_pushboolean(L, async);
    lua_pushcclosure(L, trampoline, 3);
    lua_interceptor *li = malloc(sizeof *li);
    if (li == NULL) return luaL_error(L, "switchboard: out of memory");
    sb_lua_fn *fn = sb_lua_fn_new(ctx, L, -1);
    li->trampoline = fn != NULL ? sb_callback_new(sb_lua_fn_call, fn, sb_lua_fn_free) : NULL;
    if (li->trampoline == NULL) {
        if (fn != NULL) sb_lua_fn_free(fn);
        free(li);
        return luaL_error(L, "switchboard: out of memory");
    }
    li->async = async;
    uint64_t id = 0;
    sb_status status = sb_interceptor_add(ctx->m, (int)priority, intercept, li, interceptor_free, &id);
    size_t name_length = 0;
    if (status == SB_OK) {
        char fallback[48];
        if (name == NULL) {
            snprintf(fallback, sizeof fallback, "Lua interceptor %llu", (unsigned long long)id);
            name = fallback;
        }
        name_length = strlen(name);
        unsigned ms = timeout > 0 ? (unsigned)(timeout * 1000 + 0.5) : 0;
        status = sb_interceptor_set_options(ctx->m, id, name, timeout > 0 && ms == 0 ? 1 : ms);
        if (status != SB_OK) sb_interceptor_remove(ctx->m, id);
    }
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    sb_lua_remember_hook(ctx, 'i', id);
    charge_hook(L, ctx, 'i', id, SB_LUA_REGISTRATION_COST + SB_LUA_NAME_COPIES * (long long)name_length);
    lua_pushinteger(L, (lua_Integer)id);
    return 1;
}

/* sb.unintercept(id), sb.unobserve(id): only a hook this state added. The
 * mediator's others (the host's, another state's) are not a script's to
 * remove, whatever number it tries: ENOTFOUND, as for an unknown id. */
static int remove_hook(lua_State *L, char kind) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    lua_Integer id = luaL_checkinteger(L, 1);
    if (!sb_lua_owns_hook(ctx, kind, (uint64_t)id)) {
        lua_pushnil(L);
        lua_pushfstring(L, "this Lua state added no %s with id %I", kind == 'i' ? "interceptor" : "observer", id);
        lua_pushstring(L, sb_lua_status_name(SB_ENOTFOUND));
        return 3;
    }
    sb_status status = kind == 'i' ? sb_interceptor_remove(ctx->m, (uint64_t)id) : sb_observer_remove(ctx->m, (uint64_t)id);
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    sb_lua_forget_hook(ctx, kind, (uint64_t)id);
    char key[24];
    snprintf(key, sizeof key, "%llu", (unsigned long long)id);
    sb_lua_uncharge_name(L, kind == 'i' ? SB_LUA_CHARGE_INTERCEPTOR : SB_LUA_CHARGE_OBSERVER, key);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_unintercept(lua_State *L) { return remove_hook(L, 'i'); }
static int l_unobserve(lua_State *L) { return remove_hook(L, 'o'); }

/* ------------------------------------------------------------- observers */

static void observe(void *userdata, const sb_call_event *e) {
    sb_value *d = sb_dict_new();
    sb_dict_set_new(d, "phase", sb_string(e->phase == SB_CALL_START ? "start" : "end"));
    if (e->target != NULL) sb_dict_set_new(d, "target", sb_string(e->target));
    if (e->action != NULL) sb_dict_set_new(d, "action", sb_string(e->action));
    if (e->url != NULL) sb_dict_set_new(d, "url", sb_string(e->url));
    sb_value *tags = sb_array_new();
    for (size_t i = 0; i < e->tag_count; i++) sb_array_append_new(tags, sb_string(e->tags[i]));
    sb_dict_set_new(d, "tags", tags);
    sb_dict_set(d, "params", (sb_value *)e->params);
    if (e->phase == SB_CALL_END) {
        sb_dict_set_new(d, "duration", sb_double((double)e->duration_ns / 1e9));
        if (e->status == SB_OK) {
            if (e->result != NULL) sb_dict_set(d, "result", (sb_value *)e->result);
        } else {
            sb_dict_set_new(d, "code", sb_string(sb_lua_status_name(e->status)));
            sb_dict_set_new(d, "message", sb_string(e->message != NULL ? e->message : ""));
        }
    }
    sb_value *out = NULL;
    /* From another thread this is queued and delivered by sb.poll(). The
     * thread's last error is the caller's: keep it. */
    const char *before = sb_error_message();
    char *kept = before != NULL ? strdup(before) : NULL;
    sb_callback_call(userdata, d, &out);
    if (kept != NULL) {
        sb_error_set("%s", kept);
        free(kept);
    }
    sb_value_release(out);
    sb_value_release(d);
}

static void observer_free(void *userdata) {
    sb_value_release(userdata);
}

/* sb.observe(fn) -> id; fn(event) with event.phase "start" or "end". */
static int l_observe(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    luaL_checktype(L, 1, LUA_TFUNCTION);
    sb_lua_fn *fn = sb_lua_fn_new(ctx, L, 1);
    sb_value *callback = fn != NULL ? sb_callback_new(sb_lua_fn_call, fn, sb_lua_fn_free) : NULL;
    if (callback == NULL) {
        if (fn != NULL) sb_lua_fn_free(fn);
        return luaL_error(L, "switchboard: out of memory");
    }
    uint64_t id = 0;
    sb_status status = sb_observer_add(ctx->m, observe, callback, observer_free, &id);
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    sb_lua_remember_hook(ctx, 'o', id);
    charge_hook(L, ctx, 'o', id, SB_LUA_REGISTRATION_COST);
    lua_pushinteger(L, (lua_Integer)id);
    return 1;
}

/* --------------------------------------------------- rules and degrading */

/* sb.rules(list | json) replaces the rules -> true | nil, message, code */
static int l_rules(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    sb_status status;
    size_t length = 0; /* of the rules' JSON text, for the charge */
    if (lua_type(L, 1) == LUA_TSTRING) {
        const char *json = lua_tolstring(L, 1, &length);
        luaL_argcheck(L, strlen(json) == length, 1, "the JSON contains a NUL byte");
        status = sb_rules_set_json(ctx->m, json);
    } else {
        luaL_checktype(L, 1, LUA_TTABLE);
        sb_lua_conv conv;
        conv.ctx = ctx;
        sb_value *rules = sb_lua_to_value_safely(L, 1, &conv);
        if (rules == NULL) return luaL_argerror(L, 1, conv.error);
        if (sb_value_count(rules) == 0) {
            sb_value_release(rules);
            status = sb_rules_set_json(ctx->m, "[]");
        } else {
            char *json = sb_json_encode(rules);
            sb_value_release(rules);
            if (json == NULL) return luaL_error(L, "switchboard: out of memory");
            length = strlen(json);
            status = sb_rules_set_json(ctx->m, json);
            sb_memory_free(json);
        }
    }
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    /* the rules replace the last */
    sb_lua_recharge_or_raise(L, SB_LUA_CHARGE_RULES, "", SB_LUA_REGISTRATION_COST + SB_LUA_NAME_COPIES * (long long)length);
    lua_pushboolean(L, 1);
    return 1;
}

/* sb.degrade(fn | nil) sets or removes the degrade handler -> true */
static int l_degrade(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    sb_status status;
    if (lua_isnoneornil(L, 1)) {
        status = sb_degrade_handler_set(ctx->m, NULL, NULL, NULL);
        if (status == SB_OK) sb_lua_remember_degrade(ctx, NULL);
    } else {
        luaL_checktype(L, 1, LUA_TFUNCTION);
        sb_lua_fn *fn = sb_lua_fn_new(ctx, L, 1);
        if (fn == NULL) return luaL_error(L, "switchboard: out of memory");
        status = sb_degrade_handler_set(ctx->m, sb_lua_action_call, fn, sb_lua_fn_free);
        if (status == SB_OK) sb_lua_remember_degrade(ctx, fn); /* removed at close if still this one */
    }
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    lua_pushboolean(L, 1);
    return 1;
}

/* ---------------------------------------------------------- cancellation */

#define SB_LUA_CANCEL "switchboard.cancellation"

/* A token: on its module's list, so that the close frees one Lua does
 * not finalize (sb_lua_closer). */
typedef struct token_box {
    sb_lua_closer closer;
    sb_cancellation *c; /* NULL once freed */
} token_box;

static sb_cancellation *check_token(lua_State *L, int idx) {
    token_box *box = luaL_checkudata(L, idx, SB_LUA_CANCEL);
    return box->c;
}

static void free_token(token_box *box) {
    sb_cancellation *c = box->c;
    box->c = NULL;
    sb_cancellation_free(c);
}

static void token_close(lua_State *L, sb_lua_closer *closer) {
    (void)L;
    free_token((token_box *)closer);
}

static int token_cancel(lua_State *L) {
    sb_cancellation_request(check_token(L, 1));
    return 0;
}

static int token_cancelled(lua_State *L) {
    lua_pushboolean(L, sb_cancellation_requested(check_token(L, 1)));
    return 1;
}

static int token_gc(lua_State *L) {
    token_box *box = luaL_checkudata(L, 1, SB_LUA_CANCEL);
    sb_lua_closer_remove(&box->closer);
    free_token(box);
    return 0;
}

/* sb.cancellation() -> a token with :cancel() and :cancelled(), for opts.cancel */
static int l_cancellation(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    token_box *box = lua_newuserdatauv(L, sizeof *box, 0);
    box->c = NULL;
    box->closer.next = box->closer.prev = NULL;
    if (luaL_newmetatable(L, SB_LUA_CANCEL)) {
        static const luaL_Reg methods[] = {{"cancel", token_cancel}, {"cancelled", token_cancelled}, {NULL, NULL}};
        luaL_newlib(L, methods);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, token_gc);
        lua_setfield(L, -2, "__gc");
        sb_lua_lock_metatable(L, SB_LUA_CANCEL);
    }
    lua_setmetatable(L, -2);
    box->c = sb_cancellation_new();
    if (box->c == NULL) return luaL_error(L, "switchboard: out of memory");
    sb_lua_closer_add(ctx, &box->closer, token_close);
    return 1;
}

/* sb.cancelled() -> whether the call running now was cancelled */
static int l_cancelled(lua_State *L) {
    lua_pushboolean(L, sb_action_cancelled());
    return 1;
}

/* ---------------------------------------------------------- call options */

int sb_lua_call_options(lua_State *L, int idx, sb_call_options *o) {
    memset(o, 0, sizeof *o);
    o->version = SB_CALL_OPTIONS_VERSION;
    if (lua_isnoneornil(L, idx)) return 0;
    luaL_checktype(L, idx, LUA_TTABLE);
    int used = 0;
    lua_getfield(L, idx, "cache");
    if (lua_toboolean(L, -1)) o->flags |= SB_CACHE_TARGET;
    lua_getfield(L, idx, "bypass");
    if (lua_toboolean(L, -1)) o->flags |= SB_BYPASS_INTERCEPTORS, used = 1;
    lua_pop(L, 2);
    /* fallback = false: no fallback answers (SB_NO_FALLBACK; perform only). */
    lua_getfield(L, idx, "fallback");
    if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1)) o->flags |= SB_NO_FALLBACK;
    lua_pop(L, 1);
    lua_getfield(L, idx, "cancel");
    if (!lua_isnil(L, -1)) {
        token_box *box = luaL_testudata(L, -1, SB_LUA_CANCEL);
        luaL_argcheck(L, box != NULL, idx, "cancel must be a token from sb.cancellation()");
        o->cancel = box->c;
        used = 1;
    }
    lua_pop(L, 1); /* the table keeps the token alive */
    /* timeout: seconds the call waits for an action that answers later. */
    lua_getfield(L, idx, "timeout");
    if (!lua_isnil(L, -1)) {
        luaL_argcheck(L, lua_type(L, -1) == LUA_TNUMBER, idx, "timeout must be a number of seconds");
        lua_Number seconds = lua_tonumber(L, -1);
        luaL_argcheck(L, seconds > 0 && seconds <= 4294967.0, idx, "timeout must be more than 0 and at most 4294967 seconds");
        double ms = seconds * 1000.0;
        o->timeout_ms = ms < 1.0 ? 1u : (unsigned)ms;
        used = 1;
    }
    lua_pop(L, 1);
    lua_getfield(L, idx, "tags");
    if (!lua_isnil(L, -1)) {
        luaL_argcheck(L, lua_type(L, -1) == LUA_TTABLE, idx, "tags must be an array of strings");
        lua_Integer n = luaL_len(L, -1);
        luaL_argcheck(L, n >= 0 && n <= 1000, idx, "at most 1000 tags");
        const char **tags = lua_newuserdatauv(L, (size_t)(n > 0 ? n : 1) * sizeof *tags, 0);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, -2, i);
            luaL_argcheck(L, lua_type(L, -1) == LUA_TSTRING, idx, "tags must be an array of strings");
            size_t length = 0;
            tags[i - 1] = lua_tolstring(L, -1, &length); /* kept alive by the tags table */
            /* A NUL would cut the tag short where C reads it. */
            luaL_argcheck(L, strlen(tags[i - 1]) == length, idx, "a tag holds a NUL byte");
            lua_pop(L, 1);
        }
        o->tags = tags;
        o->tag_count = (size_t)n;
        used = 1;
        /* The array and the tags table stay on the stack for the call. */
        return used;
    }
    lua_pop(L, 1);
    return used;
}

const luaL_Reg sb_lua_hook_functions[] = {
    {"intercept", l_intercept},
    {"unintercept", l_unintercept},
    {"observe", l_observe},
    {"unobserve", l_unobserve},
    {"rules", l_rules},
    {"degrade", l_degrade},
    {"cancellation", l_cancellation},
    {"cancelled", l_cancelled},
    {NULL, NULL},
};
