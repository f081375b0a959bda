/*
 * sb.perform to a Lua action of this same state, without C values.
 *
 * The general path converts the caller's table to a C dict, and the action's
 * trampoline converts the dict back to a new table (and the result the same
 * way, twice). When the mediator says the call would do nothing but call the
 * registered function (sb__action_enter: no hooks, no contract, registered by
 * name, not too deep) and that function is a Lua function of this module,
 * the call copies the table in Lua instead, the copy built exactly as the
 * conversion there and back would build it, and calls the function as the
 * trampoline does (the same protected call, the same handling of what it
 * returns). Everything else takes the general path, unchanged: a table this
 * copy does not handle (functions, userdata, metatables, non-ASCII keys, a
 * key order recorded from a dict, anything the conversion refuses, more than
 * a few keys or levels), call options, a coroutine that may yield, another
 * thread, a module key. Tests: spec/direct_spec.lua runs the same calls both
 * ways (an observer forces the general path) and compares.
 *
 * The copy is taken in two steps. Before the call is entered, the table is
 * read, raw, into a snapshot on the stack (keys and values; no allocation,
 * so no collection and no finalizer runs meanwhile) and checked; if it will
 * not do, nothing has happened yet. Inside the protected call, the new
 * tables are built from the snapshot alone, so a finalizer that runs while
 * they are allocated cannot change what the action gets.
 */
#include "internal.h"
#include "switchboard_sys.h" /* sb__action_enter, sb__action_leave: face-internal */

#include <stdint.h>
#include <string.h>

#define DIRECT_MAX_ENTRIES 32 /* keys (or elements) in all tables together */
#define DIRECT_MAX_TABLES 8
#define DIRECT_MAX_DEPTH 4     /* tables inside tables */
#define DIRECT_MAX_KEY 64      /* bytes of a key */

/* A table of the snapshot: its entries are entries[first, first + count). */
typedef struct direct_table {
    int array; /* keys 1..count: the elements' slots are in key order */
    int count;
    int first;
} direct_table;

/* An entry: stack slots (relative to the first snapshot slot) of its key
 * (dicts) and value, and the table its value is (or -1). */
typedef struct direct_entry {
    int key;
    int value;
    int table;
} direct_entry;

typedef struct direct_call {
    sb_lua_call_frame frame;
    int base; /* the stack index of the first snapshot slot, in the caller's frame */
    int ntables, nentries;
    size_t cost; /* as the conversion counts it (convert.c: account) */
    direct_table tables[DIRECT_MAX_TABLES];
    direct_entry entries[DIRECT_MAX_ENTRIES];
} direct_call;

/* Whether a table made from a dict with a recorded order is at idx
 * (convert.c: push_record); such a table converts in that order. */
static int has_record(lua_State *L, sb_lua_ctx *ctx, int idx) {
    if (ctx->orders_ref == LUA_NOREF) return 0;
    int recorded = 0;
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->orders_ref) == LUA_TTABLE) {
        lua_pushvalue(L, idx);
        recorded = lua_rawget(L, -2) != LUA_TNIL;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return recorded;
}

/* A key the copy takes as the conversion would: ASCII without NUL, short,
 * and (at the top) not a module key, which the general path reads. */
static int plain_key(lua_State *L, int idx, int top_level, size_t *length) {
    const char *key = lua_tolstring(L, idx, length);
    if (*length == 0 || *length > DIRECT_MAX_KEY) return 0;
    for (size_t i = 0; i < *length; i++) {
        if ((unsigned char)key[i] - 1u >= 0x7fu) return 0; /* NUL, or not ASCII */
    }
    if (top_level && ((*length == sizeof SB_MODULE_KEY - 1 && memcmp(key, SB_MODULE_KEY, *length) == 0) ||
                      (*length == sizeof SB_MODULE_KEY_CTMEDIATOR - 1 &&
                       memcmp(key, SB_MODULE_KEY_CTMEDIATOR, *length) == 0))) {
        return 0;
    }
    return 1;
}

/*
 * Reads the table at idx into the snapshot: its keys and values pushed, one
 * table (then its tables, each after the whole of its parent). 0 when the
 * copy will not do (the stack may hold part of a snapshot: the caller drops
 * it). No allocation, no Lua code: raw reads only.
 */
static int take(lua_State *L, sb_lua_ctx *ctx, direct_call *d, int idx, int depth, const void **path) {
    if (d->ntables == DIRECT_MAX_TABLES || depth > DIRECT_MAX_DEPTH) return 0;
    if (lua_getmetatable(L, idx)) return 0; /* sb.array's marker, weak tables, ...: the general path */
    if (has_record(L, ctx, idx)) return 0;
    const void *self = lua_topointer(L, idx);
    for (int i = 0; i < depth; i++) {
        if (path[i] == self) return 0; /* a cycle: the general path says so */
    }
    path[depth] = self;
    direct_table *t = &d->tables[d->ntables++];
    t->first = d->nentries;
    t->count = 0;
    t->array = -1; /* not known until the first key */
    d->cost += SB_LUA_CONVERT_VALUE_COST;
    lua_Integer max = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (d->nentries == DIRECT_MAX_ENTRIES || !lua_checkstack(L, 3)) return 0;
        direct_entry *e = &d->entries[d->nentries++];
        t->count++;
        int key_type = lua_type(L, -2);
        if (key_type == LUA_TSTRING) {
            size_t length;
            if (t->array == 1 || !plain_key(L, -2, depth == 0, &length)) return 0;
            t->array = 0;
            d->cost += SB_LUA_CONVERT_KEY_COST + length;
        } else if (key_type == LUA_TNUMBER && lua_isinteger(L, -2) && lua_tointeger(L, -2) >= 1) {
            if (t->array == 0 || depth == 0) return 0; /* mixed keys; params that are an array */
            t->array = 1;
            if (lua_tointeger(L, -2) > max) max = lua_tointeger(L, -2);
        } else {
            return 0;
        }
        size_t length = 0;
        switch (lua_type(L, -1)) {
        case LUA_TBOOLEAN:
        case LUA_TNUMBER:
            break;
        case LUA_TSTRING:
            (void)lua_tolstring(L, -1, &length);
            break;
        case LUA_TLIGHTUSERDATA:
            if (lua_touserdata(L, -1) != &sb_lua_null) return 0;
            break;
        case LUA_TTABLE:
            break; /* taken after this table, and counted then */
        default:
            return 0;
        }
        if (lua_type(L, -1) != LUA_TTABLE) d->cost += SB_LUA_CONVERT_VALUE_COST + length;
        if (d->cost >= SB_LUA_CHARGE_STEP / 2) return 0; /* the conversion would charge the host */
        e->key = lua_gettop(L) - 1 - d->base;
        e->value = e->key + 1;
        e->table = lua_type(L, -1) == LUA_TTABLE ? -2 : -1; /* -2: to take */
        lua_pushvalue(L, -2); /* the key again, for lua_next; key and value stay */
    }
    if (t->array == 1 && max != t->count) return 0; /* holes: the general path says so */
    if (t->array == -1) t->array = 0;         /* {}: an empty dict */
    if (t->array) {
        /* The elements in key order (the keys are 1..count, each once). */
        direct_entry sorted[DIRECT_MAX_ENTRIES];
        for (int i = 0; i < t->count; i++) {
            direct_entry *e = &d->entries[t->first + i];
            sorted[lua_tointeger(L, d->base + e->key) - 1] = *e;
        }
        memcpy(&d->entries[t->first], sorted, (size_t)t->count * sizeof sorted[0]);
    } else if (t->count > 1) {
        /* The keys in byte order, as the conversion puts a table's keys
         * into its dict (one without a recorded order). */
        direct_entry *e = &d->entries[t->first];
        for (int i = 1; i < t->count; i++) {
            direct_entry k = e[i];
            size_t klen;
            const char *kb = lua_tolstring(L, d->base + k.key, &klen);
            int j = i;
            for (; j > 0; j--) {
                size_t plen;
                const char *pb = lua_tolstring(L, d->base + e[j - 1].key, &plen);
                size_t n = klen < plen ? klen : plen;
                int c = memcmp(kb, pb, n);
                if (c > 0 || (c == 0 && klen >= plen)) break;
                e[j] = e[j - 1];
            }
            e[j] = k;
        }
    }
    /* Then the tables it holds, each a table of its own. */
    int first = t->first, count = t->count;
    for (int i = 0; i < count; i++) {
        direct_entry *e = &d->entries[first + i];
        if (e->table != -2) continue;
        e->table = d->ntables;
        if (!take(L, ctx, d, d->base + e->value, depth + 1, path)) return 0;
    }
    return 1;
}

/* Pushes the copy of snapshot table `i` (its slots relative to `base`), as
 * convert.c's push_typed builds the table of the dict or array it made. */
static void build(lua_State *L, const direct_call *d, int base, int i) {
    const direct_table *t = &d->tables[i];
    luaL_checkstack(L, 4, "switchboard: values nest too deep for the Lua stack");
    if (t->array) {
        lua_createtable(L, t->count, 0);
        for (int k = 0; k < t->count; k++) {
            const direct_entry *e = &d->entries[t->first + k];
            if (e->table >= 0) build(L, d, base, e->table);
            else lua_pushvalue(L, base + e->value);
            lua_rawseti(L, -2, (lua_Integer)k + 1);
        }
        sb_lua_push_array_mt(L);
        lua_setmetatable(L, -2);
        return;
    }
    lua_createtable(L, 0, t->count);
    for (int k = 0; k < t->count; k++) {
        const direct_entry *e = &d->entries[t->first + k];
        lua_pushvalue(L, base + e->key);
        if (e->table >= 0) build(L, d, base, e->table);
        else lua_pushvalue(L, base + e->value);
        lua_rawset(L, -3);
    }
}

/* In protected mode (1: the call, 2...: the snapshot): the function, the
 * copy of the params, the call (as the trampoline's protected call). */
static int direct_protected(lua_State *L) {
    direct_call *d = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, d->frame.ref);
    if (d->ntables == 0) {
        lua_createtable(L, 0, 0); /* no params: an empty dict */
    } else {
        build(L, d, 2, 0);
    }
    return sb_lua_call_pushed(L, &d->frame);
}

/* The slot of ctx->direct_misses for this pair of names. */
static struct sb_lua_miss *miss_slot(sb_lua_ctx *ctx, const char *target, const char *action) {
    uintptr_t h = ((uintptr_t)target >> 4) ^ ((uintptr_t)action >> 3);
    h ^= h >> 7;
    return &ctx->direct_misses[h % (sizeof ctx->direct_misses / sizeof ctx->direct_misses[0])];
}

/* The pair cannot be called directly now (another face's function, a
 * contract, hooks, no registration): not tried again for a while. */
static int missed(sb_lua_ctx *ctx, const char *target, const char *action) {
    struct sb_lua_miss *miss = miss_slot(ctx, target, action);
    miss->target = target;
    miss->action = action;
    miss->skip = SB_LUA_DIRECT_RETRY;
    return -1;
}

static int perform_direct(lua_State *L, sb_lua_ctx *ctx, const char *target, const char *action);

int sb_lua_perform_direct(lua_State *L, sb_lua_ctx *ctx, const char *target, const char *action) {
    struct sb_lua_miss *miss = miss_slot(ctx, target, action);
    if (miss->skip > 0 && miss->target == target && miss->action == action) {
        miss->skip--;
        return -1;
    }
    return perform_direct(L, ctx, target, action);
}

/* Out of line: its frame is large, and a call that misses never needs it. */
static __attribute__((noinline)) int perform_direct(lua_State *L, sb_lua_ctx *ctx, const char *target,
                                                   const char *action) {
    if (!sb_lua_on_owner(ctx)) return -1; /* the general path queues the call */
    const int top = lua_gettop(L);
    int params = lua_type(L, 3) == LUA_TTABLE;
    if (!lua_checkstack(L, 16)) return -1;
    direct_call d;
    sb_lua_protected_begin(L, direct_protected, &d);
    const int handler = top + 1;
    d.base = top + 4;
    d.ntables = d.nentries = 0;
    d.cost = 0;
    const void *path[DIRECT_MAX_DEPTH + 1];
    if (params && !take(L, ctx, &d, 3, 0, path)) {
        lua_settop(L, top);
        return -1;
    }
    sb_lua_drop_released(L, ctx);
    sb_fn fn;
    void *userdata;
    uint64_t ticket;
    if (!sb__action_enter(ctx->m, target, action, &fn, &userdata, &ticket)) {
        lua_settop(L, top);
        return missed(ctx, target, action);
    }
    if (fn != sb_lua_action_call || ((sb_lua_fn *)userdata)->ctx != ctx) {
        (void)sb__action_leave(target, action, ticket, SB_OK, NULL); /* ran nothing */
        lua_settop(L, top);
        return missed(ctx, target, action);
    }
    /* Entered: the function is held until the call is left, and nothing
     * raises until then (a Lua error in the call is caught below). */
    sb_lua_call_frame_init(&d.frame, ctx, ((sb_lua_fn *)userdata)->ref);
    d.frame.keep_scalar = 1;
    lua_State *previous = ctx->active;
    ctx->active = L;
    sb_status status = sb_lua_protected_end(ctx, L, handler, 1);
    if (status == SB_OK) status = d.frame.status;
    if (status != SB_OK) sb_lua_conv_abandon(&d.frame.conv);
    sb_value *out = status == SB_OK ? d.frame.result : NULL;
    int kept = status == SB_OK && out == NULL; /* the result is on the stack as it is */
    status = sb__action_leave(target, action, ticket, status, kept ? NULL : &out);
    ctx->active = previous;
    if (status != SB_OK) {
        lua_settop(L, top);
        return sb_lua_push_failure(L, status);
    }
    if (kept) return 1;
    lua_settop(L, top);
    sb_lua_push_result(L, ctx, out);
    return 1;
}
