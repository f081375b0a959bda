/*
 * A Lua action that answers later: it returns sb.later(fn). The glue takes
 * the call's completion and calls fn(complete) at once; whoever holds
 * `complete` answers the call once, from this state's thread:
 *
 *   complete(value)                       the call succeeds with value
 *   complete(nil, message [, status])     it fails ("EACTION" by default)
 *
 * complete returns true, or nil, message, status as sb_completion_succeed
 * or _fail report (a second answer, one after the caller stopped waiting).
 * A caller that waits for the call on this same thread (sb.perform outside
 * a coroutine) would wait forever, since only this thread can run
 * `complete`: that call fails at once with EWOULDBLOCK. A caller on another
 * thread (its call queued for this state) waits, or gets `done`, there. A `complete` that is
 * collected (or whose state closes) before it answered fails the call.
 */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* sb.later(fn): a marker an action returns. Upvalue 1: the context box,
 * kept with fn so that `complete` can convert values for this state. */
int sb_lua_later(lua_State *L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_newuserdatauv(L, 0, 2);
    if (luaL_newmetatable(L, SB_LUA_LATER)) sb_lua_lock_metatable(L, SB_LUA_LATER);
    lua_setmetatable(L, -2);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_setiuservalue(L, -2, 2);
    return 1;
}

#define SB_LUA_COMPLETION "switchboard.completion"

/* complete's id. Collected unanswered (the script dropped complete), it
 * fails the call: the caller gets an answer instead of waiting for one that
 * can no longer come. So does the state's close, for a box Lua would never
 * finalize (made while the state closes: see sb_lua_closer). */
typedef struct completion_box {
    sb_lua_closer closer; /* on the context's list while unanswered */
    sb_completion c;
    int answered;
} completion_box;

static void fail_unanswered(completion_box *box, const char *why) {
    if (box->answered) return;
    box->answered = 1;
    /* A finalizer runs at any allocation: between a failure and the read
     * of its message too. The thread's message is kept as it was. */
    const char *last = sb_error_message();
    char *kept = malloc(strlen(last) + 1);
    if (kept != NULL) strcpy(kept, last);
    (void)sb_completion_fail(box->c, SB_EACTION, why);
    if (kept != NULL) {
        sb_error_set("%s", kept);
        free(kept);
    }
}

static int completion_gc(lua_State *L) {
    completion_box *box = lua_touserdata(L, 1);
    sb_lua_closer_remove(&box->closer);
    fail_unanswered(box, "the Lua action's complete function (sb.later) was collected before it answered");
    return 0;
}

/* The state closes with the call open. */
static void completion_close(lua_State *L, sb_lua_closer *closer) {
    (void)L;
    fail_unanswered((completion_box *)closer, "the Lua state of this action (sb.later) closed before it answered");
}

/* complete(value) / complete(nil, message [, status]). Upvalues: the
 * context box, the completion's box. */
static int l_complete(lua_State *L) {
    sb_lua_ctx *ctx = sb_lua_ctx_of(L);
    completion_box *box = lua_touserdata(L, lua_upvalueindex(2));
    sb_completion c = box->c;
    sb_status status;
    if (lua_isnil(L, 1) && !lua_isnone(L, 2)) {
        const char *message = luaL_checkstring(L, 2);
        sb_status failure = SB_EACTION;
        if (!lua_isnoneornil(L, 3)) failure = sb_lua_status_from_name(luaL_checkstring(L, 3));
        status = sb_completion_fail(c, failure, message);
    } else {
        sb_value *value = NULL;
        if (!lua_isnoneornil(L, 1)) {
            sb_lua_conv conv;
            conv.ctx = ctx;
            value = sb_lua_to_value_safely(L, 1, &conv);
            if (value == NULL) return luaL_argerror(L, 1, conv.error);
        }
        status = sb_completion_succeed(c, value); /* stolen */
    }
    box->answered = 1; /* answered, or refused for good: the collector need not */
    sb_lua_closer_remove(&box->closer);
    if (status != SB_OK) return sb_lua_push_failure(L, status);
    lua_pushboolean(L, 1);
    return 1;
}

sb_status sb_lua_later_start(lua_State *L, int idx, sb_completion queued) {
    /* A call queued from another thread brings its completion; its caller
     * waits (if it does) on that thread, where the answer will come. */
    sb_completion c = queued != 0 ? queued : sb_completion_take();
    if (c == 0) {
        sb_error_set("sb.later: only an action answers later (this Lua function was not called as an action)");
        return SB_EACTION;
    }
    if (queued == 0 && sb_completion_caller_waits(c)) {
        sb_error_set("sb.later: the caller waits for this answer on the Lua state's own thread, where it could "
                     "never come (sb.perform outside a coroutine, or in one a scheduler such as cqueues runs; a "
                     "callback, which answers at once); call the action with sb.perform from inside a coroutine, or "
                     "with sb.perform_async");
        return SB_EWOULDBLOCK;
    }
    lua_getiuservalue(L, idx, 1); /* fn */
    lua_getiuservalue(L, idx, 2); /* the context box */
    sb_lua_ctx *ctx = *(sb_lua_ctx **)lua_touserdata(L, -1);
    if (ctx == NULL) { /* made by a module table that is gone */
        lua_pop(L, 2);
        sb_error_set("sb.later: the module that made this object is closed");
        return SB_EACTION;
    }
    /* If this raises (memory), the action fails and the id is closed. */
    completion_box *box = lua_newuserdatauv(L, sizeof *box, 0);
    box->c = c;
    box->closer.next = box->closer.prev = NULL;
    box->answered = 1; /* until the metatable is set: nothing to fail yet */
    if (luaL_newmetatable(L, SB_LUA_COMPLETION)) {
        lua_pushcfunction(L, completion_gc);
        lua_setfield(L, -2, "__gc");
        sb_lua_lock_metatable(L, SB_LUA_COMPLETION);
    }
    lua_setmetatable(L, -2);
    box->answered = 0;
    sb_lua_closer_add(ctx, &box->closer, completion_close);
    lua_pushcclosure(L, l_complete, 2);
    lua_call(L, 1, 0);
    return SB_PENDING;
}
