/*
 * Calls whose answer comes through the state's delivery queue (switchboard.h,
 * "Event loops"), so that the thread never waits:
 *
 *   - sb.perform, sb.open and sb.perform_service inside a coroutine: the call
 *     is made with sb_*_async and the state's queue; when it does not end at
 *     once the coroutine is suspended instead of the thread, and its `done`,
 *     run by the queue's dispatch (sb.poll(), or a C host's
 *     sb_queue_dispatch) on the owner thread, resumes it with what the call
 *     would have returned. Coroutines are resumed in the order their calls
 *     end (the queue is FIFO).
 *   - sb.perform_async(target, action, params, fn [, opts]), for schedulers
 *     that own their coroutines (cqueues): fn(result) or fn(nil, message,
 *     code) runs in a dispatch, never before sb.perform_async returns.
 *
 * Every `done` runs on the owner thread (the queue is the state's), so a
 * waiter needs no lock. An error a resumed coroutine or a callback raises
 * goes to the one channel for errors raised after a suspension: the next
 * sb.poll()'s second result (sb_lua_record_error).
 *
 * A waiter is shared by the coroutine (a box on its stack, whose __gc lets
 * go: the coroutine finished, was closed, or the state closes) and by the
 * call, until its `done` ran. The queue made the call's delivery before the
 * call started, so ending it never allocates and is never refused: resumes
 * are not counted against SB_LUA_MAX_QUEUED (each is bounded by a suspended
 * coroutine, which the state's memory pays for).
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define SB_LUA_WAITER "switchboard.waiter"

struct sb_lua_waiter {
    sb_lua_ctx *ctx;     /* one reference */
    int refs;            /* the box, and the call */
    int yielded;         /* the coroutine is suspended: done resumes it */
    int finished;        /* done ran: status, result and message are set */
    int answered;        /* the coroutine has its answer, or is gone */
    int counted;         /* counted in ctx->waiting */
    int charged;         /* SB_LUA_WAIT_COST is charged to the host's budget */
    sb_status status;
    sb_value *result;    /* SB_OK's value, until pushed */
    char *message;       /* a failure's message */
    int co_ref;          /* the coroutine (or sb.perform_async's fn), anchored while it waits */
    int box_ref;         /* sb.perform_async: its box, anchored while it waits */
    int completion_ref;  /* sb.open's completion function, or LUA_NOREF */
    int callback;        /* sb.perform_async: co_ref is the function to call */
    int top;             /* the coroutine's stack top when it yielded */
};

static void waiter_release(sb_lua_waiter *w) {
    if (--w->refs > 0) return;
    sb_value_release(w->result);
    free(w->message);
    sb_lua_ctx_release(w->ctx);
    free(w);
}

/* The call no longer waits: its anchors go. */
static void stop_waiting(lua_State *L, sb_lua_waiter *w) {
    w->answered = 1;
    if (w->counted) {
        w->counted = 0;
        w->ctx->waiting--;
    }
    if (w->co_ref != LUA_NOREF) {
        luaL_unref(L, LUA_REGISTRYINDEX, w->co_ref);
        w->co_ref = LUA_NOREF;
    }
    if (w->completion_ref != LUA_NOREF) {
        luaL_unref(L, LUA_REGISTRYINDEX, w->completion_ref);
        w->completion_ref = LUA_NOREF;
    }
    if (w->box_ref != LUA_NOREF) {
        luaL_unref(L, LUA_REGISTRYINDEX, w->box_ref);
        w->box_ref = LUA_NOREF;
    }
}

/* Pushes the answer, as sb.perform returns it. */
static int push_answer(lua_State *L, sb_lua_waiter *w) {
    if (w->status == SB_OK) {
        sb_value *result = w->result;
        w->result = NULL;
        sb_lua_push_result(L, w->ctx, result);
        return 1;
    }
    lua_pushnil(L);
    lua_pushstring(L, w->message != NULL ? w->message : "the call failed (no message: out of memory)");
    lua_pushstring(L, sb_lua_status_name(w->status));
    return 3;
}

/* sb.open's completion, with {result = value} or {error = message, code =
 * code}: called on the coroutine before sb.open returns there; an error it
 * raises goes to the channel, and sb.open returns as it would have. */
static void call_completion(lua_State *L, sb_lua_waiter *w, int first) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, w->completion_ref);
    lua_createtable(L, 0, 2);
    if (w->status == SB_OK) {
        lua_pushvalue(L, first);
        lua_setfield(L, -2, "result");
    } else {
        lua_pushvalue(L, first + 1);
        lua_setfield(L, -2, "error");
        lua_pushvalue(L, first + 2);
        lua_setfield(L, -2, "code");
    }
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        sb_lua_record_error(L, w->ctx, -1, NULL);
        lua_pop(L, 1);
    }
}

/* The answer for the coroutine: what sb.perform returns, given to sb.open's
 * completion first. */
static int answer(lua_State *L, sb_lua_waiter *w) {
    int first = lua_gettop(L) + 1;
    int n = push_answer(L, w);
    if (w->completion_ref != LUA_NOREF) call_completion(L, w, first);
    stop_waiting(L, w);
    return n;
}

/* The continuation: the dispatch resumed the coroutine, or a script
 * resumed it by hand. Before its call ended, it only suspends again. */
static int resumed(lua_State *L, int status, lua_KContext k) {
    (void)status;
    sb_lua_waiter *w = (sb_lua_waiter *)k;
    lua_settop(L, w->top);
    if (!w->finished) return lua_yieldk(L, 0, k, resumed);
    return answer(L, w);
}

/* In protected mode (arg 1: the waiter): resumes the suspended coroutine
 * with its answer, on the owner thread. */
static int resume_protected(lua_State *L) {
    sb_lua_waiter *w = lua_touserdata(L, 1);
    sb_lua_ctx *ctx = w->ctx;
    if (w->answered || w->co_ref == LUA_NOREF) return 0;
    lua_rawgeti(L, LUA_REGISTRYINDEX, w->co_ref);
    lua_State *co = lua_tothread(L, -1);
    /* Still suspended in its call (not closed by coroutine.close). */
    if (co != NULL && lua_status(co) == LUA_YIELD) {
        int results = 0;
        ctx->ran++;
        lua_State *previous = ctx->active;
        ctx->active = co;
        int rc = lua_resume(co, L, 0, &results);
        ctx->active = previous;
        if (rc == LUA_OK || rc == LUA_YIELD) {
            lua_pop(co, results); /* what it returned or yielded next goes nowhere */
        } else {
            /* It raised: the message with where it was, for the channel. */
            const char *message = lua_tostring(co, -1);
            luaL_traceback(L, co, message != NULL ? message : "(error object is not a string)", 0);
            sb_lua_record_error(L, ctx, -1, NULL);
        }
    }
    return 0;
}

/* In protected mode (arg 1: the waiter): sb.perform_async's fn(result) or
 * fn(nil, message, code); an error it raises goes to the channel. */
static int call_back_protected(lua_State *L) {
    sb_lua_waiter *w = lua_touserdata(L, 1);
    sb_lua_ctx *ctx = w->ctx;
    if (w->answered || w->co_ref == LUA_NOREF) return 0;
    lua_rawgeti(L, LUA_REGISTRYINDEX, w->co_ref);
    int n = push_answer(L, w);
    stop_waiting(L, w);
    ctx->ran++;
    if (lua_pcall(L, n, 0, 0) != LUA_OK) sb_lua_record_error(L, ctx, -1, NULL);
    return 0;
}

/* Runs `body` for the waiter on the state's running thread, protected: a
 * memory error there goes to the channel, and the wait ends all the same. */
static void deliver(sb_lua_waiter *w, lua_CFunction body) {
    sb_lua_ctx *ctx = w->ctx;
    lua_State *L = sb_lua_running(ctx);
    if (!lua_checkstack(L, 8)) {
        sb_lua_record_error(L, ctx, 0, "Lua stack overflow delivering an answer");
    } else if (sb_lua_protected(ctx, L, body, w) != SB_OK) {
        sb_lua_record_error(L, ctx, 0, sb_error_message());
    }
    if (!w->answered && lua_checkstack(L, 2)) stop_waiting(L, w);
}

static void call_back(sb_lua_waiter *w) {
    deliver(w, call_back_protected);
}

/* Posted when sb.perform_async's call ended before it returned: the
 * callback runs in a dispatch all the same. */
static void call_back_posted(void *userdata) {
    sb_lua_waiter *w = userdata;
    if (!w->ctx->closed) call_back(w);
    waiter_release(w);
}

/* The call ended: at once, in a dispatch, or as the state closes (its
 * queue is freed, and what was still running ends as cancelled). */
static void done(void *userdata, sb_status status, sb_value *result) {
    sb_lua_waiter *w = userdata;
    w->status = status;
    w->result = result;
    if (status != SB_OK) {
        const char *text = sb_error_message();
        w->message = malloc(strlen(text) + 1); /* NULL: a default in push_answer */
        if (w->message != NULL) strcpy(w->message, text);
    }
    w->finished = 1;
    if (!w->ctx->closed && w->yielded) deliver(w, w->callback ? call_back_protected : resume_protected);
    waiter_release(w); /* the call's */
}

/* The coroutine's box: on the context's list until its __gc ran, so that
 * the close lets go of a wait Lua never finalizes (sb_lua_closer). */
typedef struct waiter_box {
    sb_lua_closer closer;
    sb_lua_waiter *w;
} waiter_box;

static void let_go(lua_State *L, waiter_box *box) {
    sb_lua_waiter *w = box->w;
    if (w == NULL) return;
    box->w = NULL;
    if (!w->answered) stop_waiting(L, w);
    if (w->charged) (void)sb_lua_charge(L, -SB_LUA_WAIT_COST);
    waiter_release(w);
}

/* __gc of the box: the coroutine is gone (finished, closed, collected) or
 * the state closes. */
static int box_gc(lua_State *L) {
    waiter_box *box = lua_touserdata(L, 1);
    sb_lua_closer_remove(&box->closer);
    let_go(L, box);
    return 0;
}

static void box_close(lua_State *L, sb_lua_closer *closer) {
    let_go(L, (waiter_box *)closer);
}

/* Whether a scheduler that owns its coroutines runs L now: cqueues, whose
 * controller takes any yield that is not its own for one to pass up to
 * whoever runs the loop ("attempt to yield from outside a coroutine").
 * Asked through its C core (package.loaded._cqueues.running), read raw, and
 * only if that is a C function: nothing a script wrote runs here. */
static int under_scheduler(lua_State *L) {
    if (!lua_checkstack(L, 4)) return 0;
    int top = lua_gettop(L);
    int owned = 0;
    if (lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE) == LUA_TTABLE) {
        lua_pushliteral(L, "_cqueues");
        if (lua_rawget(L, -2) == LUA_TTABLE) {
            lua_pushliteral(L, "running");
            if (lua_rawget(L, -2) == LUA_TFUNCTION && lua_iscfunction(L, -1) &&
                lua_pcall(L, 0, 1, 0) == LUA_OK) {
                owned = !lua_isnil(L, -1); /* the controller running this coroutine */
            }
        }
    }
    lua_settop(L, top);
    return owned;
}

int sb_lua_may_yield(lua_State *L, sb_lua_ctx *ctx) {
    return lua_isyieldable(L) && L != ctx->L && !under_scheduler(L);
}

/* A waiter held by a box pushed on L, anchoring the value at `anchor`
 * (the coroutine, or the callback) and the completion at `completion`. */
static sb_lua_waiter *new_waiter(lua_State *L, sb_lua_ctx *ctx, int anchor, int completion) {
    waiter_box *box = lua_newuserdatauv(L, sizeof *box, 0);
    box->w = NULL;
    box->closer.next = box->closer.prev = NULL;
    if (luaL_newmetatable(L, SB_LUA_WAITER)) {
        lua_pushcfunction(L, box_gc);
        lua_setfield(L, -2, "__gc");
        sb_lua_lock_metatable(L, SB_LUA_WAITER);
    }
    lua_setmetatable(L, -2);
    if (anchor == 0) lua_pushthread(L);
    else lua_pushvalue(L, anchor);
    int co_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    int completion_ref = LUA_NOREF;
    if (completion != 0) {
        lua_pushvalue(L, completion);
        completion_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    if (!sb_lua_charge(L, SB_LUA_WAIT_COST)) {
        luaL_unref(L, LUA_REGISTRYINDEX, co_ref);
        luaL_unref(L, LUA_REGISTRYINDEX, completion_ref);
        luaL_error(L, "switchboard: the host's memory budget refused what a suspended call keeps (sb_lua_set_charge)");
        return NULL;
    }
    sb_lua_waiter *w = calloc(1, sizeof *w);
    if (w == NULL) {
        luaL_unref(L, LUA_REGISTRYINDEX, co_ref);
        luaL_unref(L, LUA_REGISTRYINDEX, completion_ref);
        (void)sb_lua_charge(L, -SB_LUA_WAIT_COST);
        luaL_error(L, "switchboard: out of memory");
        return NULL;
    }
    pthread_mutex_lock(&ctx->lock);
    ctx->refs++;
    pthread_mutex_unlock(&ctx->lock);
    w->ctx = ctx;
    w->refs = 1; /* the box; the call takes one when it is made */
    w->co_ref = co_ref;
    w->completion_ref = completion_ref;
    w->box_ref = LUA_NOREF;
    w->charged = 1;
    box->w = w;
    sb_lua_closer_add(ctx, &box->closer, box_close);
    return w;
}

sb_lua_waiter *sb_lua_waiter_new(lua_State *L, sb_lua_ctx *ctx, int completion) {
    return new_waiter(L, ctx, 0, completion);
}

void sb_lua_queued_options(sb_lua_ctx *ctx, const sb_call_options *given, sb_call_options *out) {
    if (given != NULL) {
        *out = *given;
    } else {
        sb_call_options none = SB_CALL_OPTIONS_INIT;
        *out = none;
    }
    out->version = SB_CALL_OPTIONS_VERSION;
    out->queue = ctx->queue;
}

/* Makes the call; `done` gets its answer. */
static sb_status make_call(sb_lua_ctx *ctx, sb_lua_waiter *w, sb_lua_call_kind kind, const char *target,
                           const char *action, const char *url, sb_value *params, const sb_call_options *given) {
    sb_call_options options;
    sb_lua_queued_options(ctx, given, &options);
    if (kind == SB_LUA_CALL_URL) {
        sb_url_options open = SB_URL_OPTIONS_INIT;
        open.params = params;
        open.call = &options;
        return sb_url_open_async(ctx->m, url, &open, done, w);
    }
    if (kind == SB_LUA_CALL_SERVICE) {
        unsigned flags = options.flags;
        options.flags = 0;
        return sb_service_perform_async(ctx->m, target, action, params, flags, &options, done, w);
    }
    return sb_action_perform_async(ctx->m, target, action, params, &options, done, w);
}

int sb_lua_perform_yielding(lua_State *L, sb_lua_waiter *w, sb_lua_call_kind kind, const char *target,
                            const char *action, const char *url, sb_value *params, const sb_call_options *options,
                            sb_lua_conv *conv) {
    sb_lua_ctx *ctx = w->ctx;
    w->refs++; /* the call's */
    lua_State *previous = ctx->active;
    ctx->active = L;
    sb_status status = make_call(ctx, w, kind, target, action, url, params, options);
    ctx->active = previous;
    sb_value_release(params);
    if (conv != NULL) sb_lua_conv_uncharge(L, conv);
    if (!w->finished && status != SB_PENDING) { /* refused before the call: done never runs */
        w->refs--;
        stop_waiting(L, w);
        return sb_lua_push_failure(L, status);
    }
    if (w->finished) return answer(L, w); /* at once */
    w->yielded = 1;
    w->counted = 1;
    ctx->waiting++;
    w->top = lua_gettop(L);
    return lua_yieldk(L, 0, (lua_KContext)w, resumed);
}

/* sb.perform_async(target, action, params, fn [, opts]) */
int sb_lua_perform_async(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    size_t length;
    const char *target = luaL_checklstring(L, 1, &length);
    luaL_argcheck(L, length > 0 && strlen(target) == length, 1, "a name: non-empty, without NUL bytes");
    const char *action = luaL_checklstring(L, 2, &length);
    luaL_argcheck(L, length > 0 && strlen(action) == length, 2, "a name: non-empty, without NUL bytes");
    int type = lua_type(L, 3);
    luaL_argexpected(L, type == LUA_TNONE || type == LUA_TNIL || type == LUA_TTABLE, 3, "table or nil");
    luaL_checktype(L, 4, LUA_TFUNCTION);
    type = lua_type(L, 5);
    luaL_argexpected(L, type == LUA_TNONE || type == LUA_TNIL || type == LUA_TTABLE, 5, "table or nil");
    sb_call_options options;
    (void)sb_lua_call_options(L, 5, &options);
    sb_lua_waiter *w = new_waiter(L, ctx, 4, 0);
    w->callback = 1;
    lua_pushvalue(L, -1); /* nothing else holds the box until fn runs */
    w->box_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    sb_lua_conv conv;
    sb_value *params = sb_lua_check_params(L, ctx, 3, &conv);
    sb_lua_drop_released(L, ctx);
    w->refs++; /* the call's */
    w->counted = 1;
    ctx->waiting++;
    lua_State *previous = ctx->active;
    ctx->active = L;
    sb_status status = make_call(ctx, w, SB_LUA_CALL_PERFORM, target, action, NULL, params, &options);
    ctx->active = previous;
    sb_value_release(params);
    sb_lua_conv_uncharge(L, &conv);
    if (!w->finished && status != SB_PENDING) { /* refused before the call: done never runs */
        w->refs--;
        stop_waiting(L, w);
        return sb_lua_push_failure(L, status);
    }
    if (w->finished) {
        /* Ended at once: fn still runs in a dispatch, never before this
         * returns (a scheduler's condition waited on next would miss it). */
        w->refs++;
        if (sb_queue_post(ctx->queue, call_back_posted, w) != SB_OK) {
            w->refs--;
            call_back(w); /* no memory for the post: now, rather than never */
        }
    } else {
        w->yielded = 1; /* done calls fn */
    }
    lua_pushboolean(L, 1);
    return 1;
}

long sb_lua_pending_count(sb_lua_ctx *ctx) {
    return ctx->waiting;
}
