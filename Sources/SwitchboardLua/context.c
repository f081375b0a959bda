/*
 * The per-module context, and Lua functions handed to C.
 *
 * A Lua function in params, or registered as an action, becomes an sb_fn
 * whose userdata is an sb_lua_fn. When C or Swift calls it:
 *   - on the thread that owns the state, it runs at once, inside lua_pcall:
 *     no Lua error ever unwinds through the Swift frames that called it;
 *   - on any other thread, the call is queued on the state's delivery queue
 *     and runs at the owner's next dispatch (sb.poll()). An action takes
 *     its call's completion and answers it from there (its caller waits,
 *     or gets `done`, as for any action that answers later); a callback's
 *     caller gets SB_EQUEUED at once. At most SB_LUA_MAX_QUEUED calls
 *     wait: past that the caller gets SB_EREJECTED.
 * Registry references are dropped on the owning thread only; a release on
 * another thread is kept for it, and a post makes its dispatch drop it.
 */
#include "internal.h"
#include "switchboard_sys.h" /* sb__queue_lend: face-internal */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sb_lua_ctx *sb_lua_ctx_of(lua_State *L) {
    sb_lua_ctx **box = lua_touserdata(L, lua_upvalueindex(1));
    if (box == NULL || *box == NULL) luaL_error(L, "switchboard: the module's state is closed");
    return *box;
}

int sb_lua_on_owner(const sb_lua_ctx *ctx) {
    return pthread_equal(pthread_self(), ctx->owner);
}

lua_State *sb_lua_running(sb_lua_ctx *ctx) {
    return ctx->active != NULL ? ctx->active : ctx->L;
}

static void ctx_retain(sb_lua_ctx *ctx) {
    pthread_mutex_lock(&ctx->lock);
    ctx->refs++;
    pthread_mutex_unlock(&ctx->lock);
}

void sb_lua_ctx_release(sb_lua_ctx *ctx) {
    pthread_mutex_lock(&ctx->lock);
    long refs = --ctx->refs;
    pthread_mutex_unlock(&ctx->lock);
    if (refs > 0) return;
    pthread_mutex_destroy(&ctx->lock);
    free(ctx->registrations);
    free(ctx->hooks);
    free(ctx);
}

/* ------------------------------------------------------------ Lua functions */

sb_lua_fn *sb_lua_fn_new(sb_lua_ctx *ctx, lua_State *L, int idx) {
    /* The reference first: if it raises (no memory), nothing is allocated yet. */
    lua_pushvalue(L, idx);
    int ref = luaL_ref(L, LUA_REGISTRYINDEX);
    sb_lua_fn *fn = malloc(sizeof *fn);
    if (fn == NULL) {
        luaL_unref(L, LUA_REGISTRYINDEX, ref);
        return NULL;
    }
    ctx_retain(ctx);
    fn->ctx = ctx;
    fn->refs = 1;
    fn->ref = ref;
    fn->record = 0;
    return fn;
}

static void fn_retain(sb_lua_fn *fn) {
    pthread_mutex_lock(&fn->ctx->lock);
    fn->refs++;
    pthread_mutex_unlock(&fn->ctx->lock);
}

static void drop_posted(void *userdata);

/* A registry reference for the owner to drop: on the stack, and the first
 * one since the last drop posts one (the owner's next dispatch drops them
 * all; any entry on the owner drops them before that). */
static void keep_release(sb_lua_ctx *ctx, sb_lua_item *item, int ref) {
    item->ref = ref;
    pthread_mutex_lock(&ctx->lock);
    if (ctx->closed) { /* the registry goes with the state */
        pthread_mutex_unlock(&ctx->lock);
        free(item);
        return;
    }
    item->next = ctx->releases;
    __atomic_store_n(&ctx->releases, item, __ATOMIC_RELEASE);
    if (!ctx->release_posted) {
        ctx->refs++; /* the post's */
        ctx->release_posted = sb_queue_post(ctx->queue, drop_posted, ctx) == SB_OK;
        if (!ctx->release_posted) ctx->refs--; /* the next release, or entry, tries again */
    }
    pthread_mutex_unlock(&ctx->lock);
}

static void fn_release(sb_lua_fn *fn) {
    sb_lua_ctx *ctx = fn->ctx;
    int unref_now = 0;
    pthread_mutex_lock(&ctx->lock);
    if (--fn->refs > 0) {
        pthread_mutex_unlock(&ctx->lock);
        return;
    }
    /* luaL_unref needs two stack slots; lua_checkstack says so without
     * raising. Otherwise (or on another thread) the owner does it later. */
    int closed = ctx->closed;
    if (!closed && sb_lua_on_owner(ctx) && lua_checkstack(sb_lua_running(ctx), 2)) unref_now = 1;
    pthread_mutex_unlock(&ctx->lock);
    if (unref_now) {
        luaL_unref(sb_lua_running(ctx), LUA_REGISTRYINDEX, fn->ref);
    } else if (!closed) {
        sb_lua_item *item = calloc(1, sizeof *item);
        if (item != NULL) keep_release(ctx, item, fn->ref);
        /* else: the reference stays in the registry until the state closes */
    }
    sb_lua_ctx_release(ctx);
    free(fn);
}

static void drop_record(sb_lua_ctx *ctx, sb_lua_fn *fn);

/* The mediator's destructor for a registration or a callback: it no
 * longer holds fn (on any thread). */
void sb_lua_fn_free(void *userdata) {
    sb_lua_fn *fn = userdata;
    pthread_mutex_lock(&fn->ctx->lock);
    if (fn->record != 0) drop_record(fn->ctx, fn);
    pthread_mutex_unlock(&fn->ctx->lock);
    fn_release(fn);
}

/* Pushes the string at idx with each NUL byte written as the two characters
 * \0, so that C, which reads to the first NUL, sees all of it; returns it. */
static const char *push_whole(lua_State *L, int idx) {
    size_t length = 0;
    const char *text = lua_tolstring(L, idx, &length);
    if (strlen(text) == length) {
        lua_pushvalue(L, idx);
        return text;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (size_t i = 0; i < length; i++) {
        if (text[i] == '\0') luaL_addstring(&b, "\\0");
        else luaL_addchar(&b, text[i]);
    }
    luaL_pushresult(&b);
    return lua_tostring(L, -1);
}

/* sb_error_set with the Lua string at idx, whole (a NUL as \0): raises
 * nothing, so it copies in C. */
static void set_error_whole(lua_State *L, int idx) {
    size_t length = 0;
    const char *text = lua_tolstring(L, idx, &length);
    if (text == NULL) {
        sb_error_set("(Lua error)");
        return;
    }
    size_t nuls = 0;
    for (size_t i = 0; i < length; i++) nuls += text[i] == '\0';
    char *copy = nuls == 0 ? NULL : malloc(length + nuls + 1);
    if (copy == NULL) { /* no NUL, or no memory: as C sees it */
        sb_error_set("%s", text);
        return;
    }
    char *at = copy;
    for (size_t i = 0; i < length; i++) {
        if (text[i] == '\0') {
            *at++ = '\\';
            *at++ = '0';
        } else {
            *at++ = text[i];
        }
    }
    *at = '\0';
    sb_error_set("%s", copy);
    free(copy);
}

/* The message handler: the error with a traceback. */
static int traceback(lua_State *L) {
    const char *message = lua_type(L, 1) == LUA_TSTRING || lua_type(L, 1) == LUA_TNUMBER ? push_whole(L, 1) : NULL;
    if (message == NULL) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) {
            message = lua_tostring(L, -1);
        } else {
            message = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
        }
    }
    luaL_traceback(L, L, message, 1);
    return 1;
}

/*
 * Runs in protected mode: pushes the function and its argument, calls it,
 * and converts what it returned. A Lua function fails by raising an error,
 * or by returning nil, message [, code] (as sb.perform reports failures).
 */
static int protected_call(lua_State *L) {
    sb_lua_call_frame *f = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, f->ref);
    if (f->field != NULL) {
        /* An instance's action: a function, or a spec table's fn. */
        lua_pushstring(L, f->field);
        if (lua_rawget(L, -2) == LUA_TTABLE) {
            lua_pushliteral(L, "fn");
            lua_rawget(L, -2);
            lua_remove(L, -2);
        }
        lua_remove(L, -2);
        if (!lua_isfunction(L, -1)) {
            sb_error_set("this instance has no function under \"%s\" (its constructor's table lacks it)", f->field);
            f->status = SB_EACTION;
            return 0;
        }
    }
    if (f->args != NULL) {
        sb_lua_push_value(L, f->ctx, f->args, 0);
    } else {
        lua_pushnil(L);
    }
    return sb_lua_call_pushed(L, f);
}

int sb_lua_call_pushed(lua_State *L, sb_lua_call_frame *f) {
    lua_call(L, 1, 3);
    int value = lua_gettop(L) - 2;
    if (luaL_testudata(L, value, SB_LUA_LATER) != NULL) { /* return sb.later(fn) */
        f->status = sb_lua_later_start(L, value, f->c);
        return 0;
    }
    if (lua_isnil(L, value) && lua_type(L, value + 1) == LUA_TSTRING) {
        set_error_whole(L, value + 1);
        f->status = lua_type(L, value + 2) == LUA_TSTRING ? sb_lua_status_from_name(lua_tostring(L, value + 2))
                                                          : SB_EACTION;
        if (f->status == SB_OK) f->status = SB_EACTION;
        return 0;
    }
    f->status = SB_OK;
    if (f->keep_scalar) {
        /* What sb_lua_push_result would make of the converted result, when
         * that is the value itself: the conversion would charge nothing
         * (below SB_LUA_CHARGE_STEP) and the value comes back equal. */
        size_t length;
        switch (lua_type(L, value)) {
        case LUA_TNIL:
            lua_pushlightuserdata(L, (void *)&sb_lua_null);
            return 1;
        case LUA_TBOOLEAN:
        case LUA_TNUMBER:
            lua_pushvalue(L, value);
            return 1;
        case LUA_TSTRING:
            (void)lua_tolstring(L, value, &length);
            if (length >= SB_LUA_CHARGE_STEP / 2) break;
            lua_pushvalue(L, value);
            return 1;
        case LUA_TLIGHTUSERDATA:
            if (lua_touserdata(L, value) != &sb_lua_null) break;
            lua_pushvalue(L, value);
            return 1;
        default:
            break;
        }
    }
    f->result = sb_lua_to_value(L, value, &f->conv);
    if (f->result == NULL) {
        sb_error_set("a Lua function returned a value that cannot cross to C: %s", f->conv.error);
        f->status = SB_ETYPE;
    }
    return 0;
}

void sb_lua_call_frame_init(sb_lua_call_frame *f, sb_lua_ctx *ctx, int ref) {
    /* Only what is read before it is written: the conversion's scratch
     * (its cycle path, its pending entries) is set up when it starts. */
    f->ctx = ctx;
    f->ref = ref;
    f->field = NULL;
    f->args = NULL;
    f->result = NULL;
    f->status = SB_OK;
    f->keep_scalar = 0;
    f->c = 0;
    f->conv.ctx = ctx;
    f->conv.allow_functions = 1;
    f->conv.root = NULL;
    f->conv.entries = NULL;
    f->conv.entry_count = 0;
}

/* Calls the function `ref` (or, with a `field`, that action of the table
 * `ref`) on L with `args`; the sb_fn contract for *out. */
static sb_status call_lua(sb_lua_ctx *ctx, lua_State *L, int ref, const char *field, const sb_value *args,
                          sb_completion c, sb_value **out) {
    sb_lua_call_frame f;
    sb_lua_call_frame_init(&f, ctx, ref);
    f.field = field;
    f.args = args;
    f.c = c;
    if (!lua_checkstack(L, 8)) {
        sb_error_set("Lua stack overflow calling a Lua function");
        return SB_EACTION;
    }
    sb_status raised = sb_lua_protected(ctx, L, protected_call, &f);
    if (raised != SB_OK) {
        sb_lua_conv_abandon(&f.conv);
        return raised;
    }
    if (f.status != SB_OK) {
        sb_lua_conv_abandon(&f.conv);
        return f.status;
    }
    *out = f.result;
    return SB_OK;
}

sb_status sb_lua_protected(sb_lua_ctx *ctx, lua_State *L, lua_CFunction fn, void *ud) {
    int top = lua_gettop(L);
    sb_lua_protected_begin(L, fn, ud);
    sb_status status = sb_lua_protected_end(ctx, L, top + 1, 0);
    lua_settop(L, top);
    return status;
}

void sb_lua_protected_begin(lua_State *L, lua_CFunction fn, void *ud) {
    lua_pushcfunction(L, traceback);
    lua_pushcfunction(L, fn);
    lua_pushlightuserdata(L, ud);
}

sb_status sb_lua_protected_end(sb_lua_ctx *ctx, lua_State *L, int handler, int nresults) {
    lua_State *previous = ctx->active;
    ctx->active = L;
    int rc = lua_pcall(L, lua_gettop(L) - handler - 1, nresults, handler);
    ctx->active = previous;
    if (rc != LUA_OK) {
        set_error_whole(L, -1);
        lua_settop(L, handler - 1);
    }
    return rc == LUA_OK ? SB_OK : rc == LUA_ERRMEM ? SB_ENOMEM : SB_EACTION;
}

/* ---------------------------------------------------- calls from threads */

static void item_free(sb_lua_item *item) {
    sb_value_release(item->args);
    if (item->fn != NULL) fn_release(item->fn);
    free(item->field);
    free(item);
}

/* A queued call, in the owner's dispatch (or as the state closes: then it
 * fails). An action's completion gets the answer; a callback's failure goes
 * to the channel for errors raised after a suspension. */
static void run_queued(void *userdata) {
    sb_lua_item *item = userdata;
    sb_lua_ctx *ctx = item->ctx;
    pthread_mutex_lock(&ctx->lock);
    ctx->queued--;
    int closed = ctx->closed;
    pthread_mutex_unlock(&ctx->lock);
    if (closed) {
        if (item->c != 0) {
            (void)sb_completion_fail(item->c, SB_EACTION, "the Lua state of this action closed before it ran the call");
        }
        item_free(item);
        return;
    }
    lua_State *L = sb_lua_running(ctx);
    sb_value *out = NULL;
    ctx->ran++;
    sb_status status = call_lua(ctx, L, item->fn->ref, item->field, item->args, item->c, &out);
    if (item->c == 0) {
        sb_value_release(out);
        if (status != SB_OK) sb_lua_record_error(L, ctx, 0, sb_error_message());
    } else if (status == SB_OK) {
        (void)sb_completion_succeed(item->c, out);
    } else if (status != SB_PENDING) { /* SB_PENDING: sb.later answers it */
        (void)sb_completion_fail(item->c, status, sb_error_message());
    }
    item_free(item);
}

/* Queues a call of fn (or of the action `field` of the instance fn is)
 * for the owner: SB_PENDING when `c`, its call's completion, will be
 * answered from there; SB_EQUEUED for a callback (c == 0), which gets no
 * answer; or why it was not queued. */
static sb_status queue_call(sb_lua_fn *fn, const char *field, const sb_value *args, sb_completion c) {
    sb_lua_ctx *ctx = fn->ctx;
    sb_lua_item *item = calloc(1, sizeof *item);
    char *copy = field != NULL ? malloc(strlen(field) + 1) : NULL;
    if (item == NULL || (field != NULL && copy == NULL)) {
        free(item);
        free(copy);
        sb_error_set("out of memory queueing a call to a Lua function");
        return SB_ENOMEM;
    }
    if (copy != NULL) strcpy(copy, field);
    item->ctx = ctx;
    item->fn = fn;
    item->field = copy;
    item->args = sb_value_retain((sb_value *)args);
    item->c = c;
    fn_retain(fn); /* the item's, before the owner can take it */
    pthread_mutex_lock(&ctx->lock);
    sb_status refused = ctx->closed ? SB_EACTION : ctx->queued >= SB_LUA_MAX_QUEUED ? SB_EREJECTED : SB_OK;
    if (refused == SB_OK) {
        ctx->queued++;
        if (sb_queue_post(ctx->queue, run_queued, item) != SB_OK) {
            ctx->queued--;
            refused = SB_ENOMEM;
        }
    }
    pthread_mutex_unlock(&ctx->lock);
    if (refused != SB_OK) {
        item->c = 0;
        item->ctx = NULL;
        item_free(item); /* fn is not released last: the caller holds it */
        if (refused == SB_EACTION) sb_error_set("the Lua state that owns this function is closed");
        else if (refused == SB_EREJECTED)
            sb_error_set("the queue of calls to this Lua state is full (SB_LUA_MAX_QUEUED = %d calls wait for its "
                         "thread's sb.poll()); the call was not queued", SB_LUA_MAX_QUEUED);
        else sb_error_set("out of memory queueing a call to a Lua function");
        return refused;
    }
    if (c != 0) return SB_PENDING;
    sb_error_set("queued: a Lua function runs only on the thread that owns its state; "
                 "it runs at that thread's next sb.poll()");
    return SB_EQUEUED;
}

sb_status sb_lua_fn_call(void *userdata, const sb_value *args, sb_value **out) {
    sb_lua_fn *fn = userdata;
    sb_lua_ctx *ctx = fn->ctx;
    if (!sb_lua_on_owner(ctx)) return queue_call(fn, NULL, args, 0);
    if (ctx->closed) { /* written by this thread only */
        sb_error_set("the Lua state that owns this function is closed");
        return SB_EACTION;
    }
    return call_lua(ctx, sb_lua_running(ctx), fn->ref, NULL, args, 0, out);
}

sb_status sb_lua_action_call(void *userdata, const sb_value *args, sb_value **out) {
    sb_lua_fn *fn = userdata;
    /* The completion of the action's call: the caller gets its answer from
     * the owner's dispatch (0 when the call cannot answer later). */
    if (!sb_lua_on_owner(fn->ctx)) return queue_call(fn, NULL, args, sb_completion_take());
    return sb_lua_fn_call(userdata, args, out);
}

sb_status sb_lua_call_action(sb_lua_fn *instance, const char *action, const sb_value *args, sb_value **out) {
    sb_lua_ctx *ctx = instance->ctx;
    if (!sb_lua_on_owner(ctx)) {
        sb_completion c = sb_completion_take();
        if (c != 0) return queue_call(instance, action, args, c);
        sb_error_set("a Lua target instance runs only on the thread that owns its Lua state");
        return SB_EREJECTED;
    }
    if (ctx->closed) {
        sb_error_set("the Lua state that owns this target instance is closed");
        return SB_EACTION;
    }
    return call_lua(ctx, sb_lua_running(ctx), instance->ref, action, args, 0, out);
}

/* ------------------------------------------------------------------- poll */

void sb_lua_drop_released_slow(lua_State *L, sb_lua_ctx *ctx) {
    pthread_mutex_lock(&ctx->lock);
    sb_lua_item *item = ctx->releases;
    __atomic_store_n(&ctx->releases, NULL, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&ctx->lock);
    while (item != NULL) {
        sb_lua_item *next = item->next;
        luaL_unref(L, LUA_REGISTRYINDEX, item->ref);
        free(item);
        item = next;
    }
}

/* The post keep_release made, in the owner's dispatch. */
static void drop_posted(void *userdata) {
    sb_lua_ctx *ctx = userdata;
    pthread_mutex_lock(&ctx->lock);
    ctx->release_posted = 0;
    int closed = ctx->closed;
    pthread_mutex_unlock(&ctx->lock);
    lua_State *L = sb_lua_running(ctx);
    if (!closed && lua_checkstack(L, 2)) sb_lua_drop_released(L, ctx);
    sb_lua_ctx_release(ctx);
}

/* The most errors the channel holds for the next sb.poll(); past it they
 * are counted, and the list ends with how many were dropped. */
#define SB_LUA_MAX_ERRORS 1024

/* In protected mode: appends the message (arg 2, a value; or arg 3, text)
 * to the list for the next sb.poll(). */
static int append_error(lua_State *L) {
    sb_lua_ctx *ctx = lua_touserdata(L, 1);
    if (ctx->errors_ref == LUA_NOREF) {
        lua_newtable(L);
        ctx->errors_ref = luaL_ref(L, LUA_REGISTRYINDEX);
        ctx->errors = 0;
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->errors_ref);
    if (lua_type(L, 2) == LUA_TSTRING) lua_pushvalue(L, 2);
    else if (!lua_isnoneornil(L, 2)) lua_pushfstring(L, "(an error that is a %s value)", luaL_typename(L, 2));
    else lua_pushstring(L, lua_touserdata(L, 3));
    lua_rawseti(L, -2, ++ctx->errors);
    return 0;
}

void sb_lua_record_error(lua_State *L, sb_lua_ctx *ctx, int idx, const char *text) {
    if (ctx->errors >= SB_LUA_MAX_ERRORS || !lua_checkstack(L, 4)) {
        ctx->dropped++;
        return;
    }
    if (idx != 0) idx = lua_absindex(L, idx);
    int top = lua_gettop(L);
    /* Pushing these allocates nothing: no memory error escapes. */
    lua_pushcfunction(L, append_error);
    lua_pushlightuserdata(L, ctx);
    if (idx != 0) lua_pushvalue(L, idx);
    else lua_pushnil(L);
    lua_pushlightuserdata(L, (void *)(text != NULL ? text : "(no message)"));
    if (lua_pcall(L, 3, 0, 0) != LUA_OK) ctx->dropped++;
    lua_settop(L, top);
}

int sb_lua_poll(lua_State *L, sb_lua_ctx *ctx, lua_Integer max) {
    sb_lua_drop_released(L, ctx);
    /* What this poll ran: not what a poll it ran (a resumed coroutine's)
     * ran and counted itself. */
    long ran = ctx->ran, counted = ctx->counted;
    lua_State *previous = ctx->active;
    ctx->active = L;
    sb_status status = sb_queue_dispatch(ctx->queue, (size_t)max, NULL);
    ctx->active = previous;
    if (status != SB_OK) return luaL_error(L, "sb.poll: %s", sb_error_message());
    long mine = (ctx->ran - ran) - (ctx->counted - counted);
    ctx->counted += mine;
    lua_pushinteger(L, mine);
    if (ctx->errors_ref == LUA_NOREF && ctx->dropped == 0) return 1;
    /* The errors raised since the last sb.poll(), wherever they ran. */
    if (ctx->errors_ref == LUA_NOREF) lua_newtable(L);
    else lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->errors_ref);
    if (ctx->dropped > 0) {
        lua_pushfstring(L, "(%I more errors were dropped: the list holds %d)", (lua_Integer)ctx->dropped,
                        SB_LUA_MAX_ERRORS);
        lua_rawseti(L, -2, ctx->errors + 1);
    }
    luaL_unref(L, LUA_REGISTRYINDEX, ctx->errors_ref);
    ctx->errors_ref = LUA_NOREF;
    ctx->errors = ctx->dropped = 0;
    return 2;
}

/* ------------------------------------------------------------- closers */

void sb_lua_closer_add(sb_lua_ctx *ctx, sb_lua_closer *c, void (*close)(lua_State *L, sb_lua_closer *self)) {
    c->close = close;
    c->prev = &ctx->closers;
    c->next = ctx->closers.next;
    c->next->prev = c;
    ctx->closers.next = c;
}

void sb_lua_closer_remove(sb_lua_closer *c) {
    if (c->next == NULL) return; /* off the list: the close ran it, or it never was on */
    c->prev->next = c->next;
    c->next->prev = c->prev;
    c->next = c->prev = NULL;
}

/* At the close, after nothing can be queued or started any more: what Lua
 * did not finalize is finalized here, each once. Running one may end a
 * call whose `done` runs here too; nothing it does adds to the list. */
static void run_closers(lua_State *L, sb_lua_ctx *ctx) {
    while (ctx->closers.next != &ctx->closers) {
        sb_lua_closer *c = ctx->closers.next;
        sb_lua_closer_remove(c);
        c->close(L, c);
    }
}

/* --------------------------------------------------------------- targets */

int sb_lua_remember(sb_lua_ctx *ctx, char kind, const char *target, const char *action, sb_lua_fn *fn) {
    size_t tlength = strlen(target) + 1, alength = strlen(action) + 1;
    char *names = malloc(tlength + alength); /* "target\0action\0" */
    if (names == NULL) return 0;
    memcpy(names, target, tlength);
    memcpy(names + tlength, action, alength);
    pthread_mutex_lock(&ctx->lock);
    if (ctx->nregistrations == ctx->cregistrations) {
        size_t capacity = ctx->cregistrations ? ctx->cregistrations * 2 : 8;
        struct sb_lua_registration *bigger = realloc(ctx->registrations, capacity * sizeof *bigger);
        if (bigger == NULL) {
            pthread_mutex_unlock(&ctx->lock);
            free(names);
            return 0;
        }
        ctx->registrations = bigger;
        ctx->cregistrations = capacity;
    }
    struct sb_lua_registration *r = &ctx->registrations[ctx->nregistrations++];
    r->kind = kind;
    r->target = names;
    r->action = names + tlength;
    r->fn = fn;
    fn->record = ctx->nregistrations;
    pthread_mutex_unlock(&ctx->lock);
    return 1;
}

/* (ctx->lock) The mediator let go of fn: its record goes (the last one
 * takes its place). */
static void drop_record(sb_lua_ctx *ctx, sb_lua_fn *fn) {
    size_t i = fn->record - 1;
    free(ctx->registrations[i].target);
    ctx->registrations[i] = ctx->registrations[--ctx->nregistrations];
    if (i < ctx->nregistrations) ctx->registrations[i].fn->record = i + 1;
    fn->record = 0;
}

void sb_lua_remember_degrade(sb_lua_ctx *ctx, sb_lua_fn *fn) {
    if (fn != NULL) fn_retain(fn);
    if (ctx->degrade != NULL) fn_release(ctx->degrade);
    ctx->degrade = fn;
}

/* -------------------------------------------------------------- closing */

void sb_lua_remember_hook(sb_lua_ctx *ctx, char kind, uint64_t id) {
    if (ctx->nhooks == ctx->chooks) {
        size_t capacity = ctx->chooks ? ctx->chooks * 2 : 8;
        struct sb_lua_hook *grown = realloc(ctx->hooks, capacity * sizeof *grown);
        if (grown == NULL) return; /* not removed at close: the hook stays, nothing breaks */
        ctx->hooks = grown;
        ctx->chooks = capacity;
    }
    ctx->hooks[ctx->nhooks].kind = kind;
    ctx->hooks[ctx->nhooks].id = id;
    ctx->nhooks++;
}

int sb_lua_owns_hook(const sb_lua_ctx *ctx, char kind, uint64_t id) {
    for (size_t i = 0; i < ctx->nhooks; i++) {
        if (ctx->hooks[i].kind == kind && ctx->hooks[i].id == id) return 1;
    }
    return 0;
}

void sb_lua_forget_hook(sb_lua_ctx *ctx, char kind, uint64_t id) {
    for (size_t i = 0; i < ctx->nhooks; i++) {
        if (ctx->hooks[i].kind == kind && ctx->hooks[i].id == id) {
            ctx->hooks[i] = ctx->hooks[--ctx->nhooks];
            return;
        }
    }
}

/* __gc of the context box: the state is closing (or the module is gone).
 * Everything that can still reach this state learns it is closed; what it
 * registered and still owns is removed (a registration another owner made
 * since under the same name stays); queued work is dropped. */
int sb_lua_close(lua_State *L) {
    sb_lua_ctx **box = luaL_checkudata(L, 1, SB_LUA_CONTEXT);
    sb_lua_ctx *ctx = *box;
    if (ctx == NULL) return 0;
    *box = NULL;
    if (ctx->discoverer != 0) sb_discoverer_remove(ctx->m, ctx->discoverer);

    pthread_mutex_lock(&ctx->lock);
    ctx->closed = 1; /* nothing is queued or called from now on */
    sb_lua_item *releases = ctx->releases;
    ctx->releases = NULL;
    pthread_mutex_unlock(&ctx->lock);
    /* What waits in the queue ends now, seeing the state closed: queued
     * calls fail their callers; calls still running are cancelled, and the
     * coroutines they would resume are let go. */
    sb_queue *queue = ctx->queue;
    ctx->queue = NULL;
    sb__queue_lend(queue, 0); /* the state's own, to free at last */
    sb_queue_free(queue);
    while (releases != NULL) { /* the registry goes with the state */
        sb_lua_item *next = releases->next;
        free(releases);
        releases = next;
    }
    /* Calls still open on this state fail now, and coroutines' waits end,
     * even those Lua would never finalize (made during the close). */
    run_closers(L, ctx);
    /* Interceptors and observers have ids no other registration reuses. */
    for (size_t i = 0; i < ctx->nhooks; i++) {
        if (ctx->hooks[i].kind == 'i') sb_interceptor_remove(ctx->m, ctx->hooks[i].id);
        else sb_observer_remove(ctx->m, ctx->hooks[i].id);
    }
    ctx->nhooks = 0;
    if (ctx->degrade != NULL) {
        (void)sb_degrade_handler_clear_if(ctx->m, sb_lua_action_call, ctx->degrade);
        sb_lua_remember_degrade(ctx, NULL);
    }
    /* Taken out under the lock, each function held for the while: removing
     * a registration runs sb_lua_fn_free, on this thread or another. What
     * is still recorded is still this state's (a replaced registration's
     * record went when the mediator let go of its function); the _if forms
     * make sure of it. */
    pthread_mutex_lock(&ctx->lock);
    struct sb_lua_registration *registrations = ctx->registrations;
    size_t count = ctx->nregistrations;
    ctx->registrations = NULL;
    ctx->nregistrations = ctx->cregistrations = 0;
    for (size_t i = 0; i < count; i++) {
        registrations[i].fn->refs++;
        registrations[i].fn->record = 0;
    }
    pthread_mutex_unlock(&ctx->lock);
    for (size_t i = 0; i < count; i++) {
        struct sb_lua_registration *r = &registrations[i];
        switch (r->kind) {
        case SB_LUA_SCHEME_HANDLER: (void)sb_scheme_unregister_if(ctx->m, r->target, sb_lua_action_call, r->fn); break;
        case SB_LUA_ROUTE_HANDLER: (void)sb_url_pattern_remove_handler_if(ctx->m, r->target, sb_lua_action_call, r->fn); break;
        case SB_LUA_CLASS: (void)sb_class_unregister_if(ctx->m, r->target, r->fn); break;
        case SB_LUA_FALLBACK_HANDLER:
            (void)sb_url_fallback_remove_handler_if(ctx->m, strcmp(r->target, "*") == 0 ? NULL : r->target,
                                                    sb_lua_action_call, r->fn);
            break;
        case SB_LUA_CONVERTER: (void)sb_url_converter_remove_if(ctx->m, r->target, sb_lua_fn_call, r->fn); break;
        default: (void)sb_action_unregister_if(ctx->m, r->target, r->action, sb_lua_action_call, r->fn); break;
        }
        fn_release(r->fn);
        free(r->target);
    }
    free(registrations);
    luaL_unref(L, LUA_REGISTRYINDEX, ctx->module_ref);
    sb_lua_ctx_release(ctx);
    return 0;
}
