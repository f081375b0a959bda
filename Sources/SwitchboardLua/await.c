/*
 * sb.perform (and sb.open of a URL) inside a coroutine: the call is made
 * with sb_action_perform_async (sb_url_open_async) and,
 * when it does not end at once, the coroutine is suspended instead of the
 * thread. Whoever ends the call (any thread) queues the coroutine on its
 * state's queue; the owner thread's sb.poll() resumes it with what
 * sb.perform would have returned. Coroutines are resumed in the order
 * their calls end (the queue is FIFO).
 *
 * A waiter is shared by the coroutine (a box on its stack, whose __gc lets
 * go: the coroutine finished, was closed, or the state closes) and by the
 * call (until `done` ran and, if it queued the resume, until sb.poll or the
 * closing state took that item). Its resume item is allocated with it, so
 * queueing a resume never allocates and is never refused: resumes are not
 * counted against SB_LUA_MAX_QUEUED (each is bounded by a suspended
 * coroutine, which the state's memory pays for).
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define SB_LUA_WAITER "switchboard.waiter"

struct sb_lua_waiter {
    sb_lua_ctx *ctx;     /* one reference */
    int refs;            /* (ctx->lock) the box, and the call */
    int yielded;         /* (ctx->lock) the coroutine is suspended: done queues the resume */
    int finished;        /* (ctx->lock) done ran: status, result and message are set */
    int answered;        /* (owner) the coroutine has its answer, or is gone */
    int counted;         /* (owner) counted in ctx->waiting */
    int charged;         /* (owner) SB_LUA_WAIT_COST is charged to the host's budget */
    sb_status status;
    sb_value *result;    /* SB_OK's value, until pushed */
    char *message;       /* a failure's message */
    int co_ref;          /* (owner) the coroutine, anchored while it waits */
    int top;             /* the coroutine's stack top when it yielded */
    sb_lua_item *resume; /* reserved: the item done queues, until queued */
};

static void waiter_release(sb_lua_waiter *w) {
    sb_lua_ctx *ctx = w->ctx;
    pthread_mutex_lock(&ctx->lock);
    int refs = --w->refs;
    pthread_mutex_unlock(&ctx->lock);
    if (refs > 0) return;
    sb_value_release(w->result);
    free(w->message);
    free(w->resume);
    free(w);
    sb_lua_ctx_release(ctx);
}

/* (owner) The coroutine no longer waits: its anchor goes. */
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
}

/* The call ended, on whatever thread ended it. */
static void done(void *userdata, sb_status status, sb_value *result) {
    sb_lua_waiter *w = userdata;
    sb_lua_ctx *ctx = w->ctx;
    char *message = NULL;
    if (status != SB_OK) {
        const char *text = sb_error_message();
        message = malloc(strlen(text) + 1); /* NULL: a default below */
        if (message != NULL) strcpy(message, text);
    }
    pthread_mutex_lock(&ctx->lock);
    w->status = status;
    w->result = result;
    w->message = message;
    w->finished = 1;
    /* Under the lock, so that the close (which sets closed under it first)
     * either sees the item in the queue or makes the push refused. */
    int queued = w->yielded && !ctx->closed &&
                 sb_lua_queue_push(&ctx->queue, &w->resume->node, 0) == SB_LUA_PUSHED;
    if (queued) w->resume = NULL; /* the call's reference goes with the item */
    pthread_mutex_unlock(&ctx->lock);
    if (!queued) waiter_release(w);
}

/* Pushes the answer, as sb.perform returns it. */
static int answer(lua_State *L, sb_lua_waiter *w) {
    stop_waiting(L, w);
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

static int finished(sb_lua_waiter *w) {
    pthread_mutex_lock(&w->ctx->lock);
    int f = w->finished;
    pthread_mutex_unlock(&w->ctx->lock);
    return f;
}

/* The continuation: sb.poll resumed the coroutine, or a script resumed it
 * by hand. Before its call ended, it only suspends again. */
static int resumed(lua_State *L, int status, lua_KContext k) {
    (void)status;
    sb_lua_waiter *w = (sb_lua_waiter *)k;
    lua_settop(L, w->top);
    if (!finished(w)) return lua_yieldk(L, 0, k, resumed);
    return answer(L, w);
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

int sb_lua_may_yield(lua_State *L, sb_lua_ctx *ctx) {
    return lua_isyieldable(L) && L != ctx->L;
}

sb_lua_waiter *sb_lua_waiter_new(lua_State *L, sb_lua_ctx *ctx) {
    waiter_box *box = lua_newuserdatauv(L, sizeof *box, 0);
    box->w = NULL;
    box->closer.next = box->closer.prev = NULL;
    if (luaL_newmetatable(L, SB_LUA_WAITER)) {
        lua_pushcfunction(L, box_gc);
        lua_setfield(L, -2, "__gc");
        sb_lua_lock_metatable(L, SB_LUA_WAITER);
    }
    lua_setmetatable(L, -2);
    lua_pushthread(L);
    int co_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    if (!sb_lua_charge(L, SB_LUA_WAIT_COST)) {
        luaL_unref(L, LUA_REGISTRYINDEX, co_ref);
        luaL_error(L, "switchboard: the host's memory budget refused what a suspended call keeps (sb_lua_set_charge)");
        return NULL;
    }
    sb_lua_waiter *w = calloc(1, sizeof *w);
    sb_lua_item *item = calloc(1, sizeof *item);
    if (w == NULL || item == NULL) {
        free(w);
        free(item);
        luaL_unref(L, LUA_REGISTRYINDEX, co_ref);
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
    w->charged = 1;
    w->resume = item;
    item->waiter = w;
    box->w = w;
    sb_lua_closer_add(ctx, &box->closer, box_close);
    return w;
}

int sb_lua_perform_yielding(lua_State *L, sb_lua_waiter *w, const char *target, const char *action,
                            const char *url, sb_value *params, const sb_call_options *options, sb_lua_conv *conv) {
    sb_lua_ctx *ctx = w->ctx;
    pthread_mutex_lock(&ctx->lock);
    w->refs++; /* the call's */
    pthread_mutex_unlock(&ctx->lock);
    lua_State *previous = ctx->active;
    ctx->active = L;
    sb_url_options open = SB_URL_OPTIONS_INIT;
    open.params = params;
    open.call = options;
    sb_status status = url != NULL ? sb_url_open_async(ctx->m, url, &open, done, w)
                                   : sb_action_perform_async(ctx->m, target, action, params, options, done, w);
    ctx->active = previous;
    sb_value_release(params);
    if (conv != NULL) sb_lua_conv_uncharge(L, conv);
    pthread_mutex_lock(&ctx->lock);
    int ended = w->finished;
    int refused = !ended && status != SB_PENDING; /* done is never called */
    if (refused) w->refs--;
    if (!ended && !refused) w->yielded = 1;
    pthread_mutex_unlock(&ctx->lock);
    if (refused) {
        stop_waiting(L, w);
        return sb_lua_push_failure(L, status);
    }
    if (ended) return answer(L, w); /* at once, or already on another thread */
    w->counted = 1;
    ctx->waiting++;
    w->top = lua_gettop(L);
    return lua_yieldk(L, 0, (lua_KContext)w, resumed);
}

int sb_lua_resume(lua_State *L, sb_lua_ctx *ctx, sb_lua_waiter *w, sb_status *status) {
    sb_status result = SB_OK;
    int ran = 0;
    if (!w->answered && w->co_ref != LUA_NOREF && lua_checkstack(L, 4)) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, w->co_ref);
        lua_State *co = lua_tothread(L, -1);
        /* Still suspended in its call (not closed by coroutine.close). */
        if (co != NULL && lua_status(co) == LUA_YIELD) {
            int results = 0;
            ran = 1;
            lua_State *previous = ctx->active;
            ctx->active = co;
            int rc = lua_resume(co, L, 0, &results);
            ctx->active = previous;
            if (rc == LUA_OK || rc == LUA_YIELD) {
                lua_pop(co, results); /* what it returned or yielded next goes nowhere */
            } else {
                /* It raised: the message with where it was, for sb.poll's list. */
                const char *message = lua_tostring(co, -1);
                luaL_traceback(L, co, message != NULL ? message : "(error object is not a string)", 0);
                sb_error_set("%s", lua_tostring(L, -1));
                lua_pop(L, 1);
                result = SB_EACTION;
            }
        }
        lua_pop(L, 1);
        /* Resumed or gone: in both cases it no longer waits for this call. */
        if (!w->answered) stop_waiting(L, w);
    }
    waiter_release(w); /* the queue's (the call's) reference */
    *status = result;
    return ran;
}

void sb_lua_waiter_dropped(sb_lua_waiter *w) {
    waiter_release(w);
}

long sb_lua_pending_count(sb_lua_ctx *ctx) {
    return ctx->waiting;
}
