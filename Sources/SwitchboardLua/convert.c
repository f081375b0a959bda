/*
 * Lua values <-> Switchboard values. The rules (also in the README):
 *
 *   Lua                          Switchboard
 *   nil, sb.null                 null       (null comes back as nil at the top
 *                                            level, as sb.null inside tables)
 *   boolean                      bool
 *   integer / float              int / double (3 and 3.0 stay different)
 *   string                       string if valid UTF-8, else bytes (byte-exact,
 *                                NULs included); both come back as strings
 *   table with keys 1..n (n>=1)  array      (sb.array(t) marks any table,
 *                                            the empty one included)
 *   any other table              dict: keys must be strings; {} is an empty dict.
 *                                Keys are bytes (two spellings of "é" are two
 *                                keys). A table made from a dict remembers the
 *                                dict's order; its keys go first, in that order,
 *                                then keys added in Lua, in byte order (a Lua
 *                                table has no order of its own)
 *   function                     callback   (calls back into this state)
 *   C value (callback, pointer)  itself     (same identity)
 *   light userdata               pointer    (no destroy)
 *
 * Tables nest at most SB_MAX_DEPTH deep; a table that contains itself is an
 * error, never a hang.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char sb_lua_null = 0;

/* The registry key of the array marker metatable. */
static const char array_mt_key = 0;

void sb_lua_push_array_mt(lua_State *L) {
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &array_mt_key) == LUA_TTABLE) return;
    lua_pop(L, 1);
    lua_createtable(L, 0, 2);
    lua_pushliteral(L, "switchboard.array");
    lua_setfield(L, -2, "__name");
    sb_lua_lock_metatable(L, "switchboard.array");
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &array_mt_key);
}

static sb_value *fail(sb_lua_conv *c, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(c->error, sizeof c->error, fmt, args);
    va_end(args);
    return NULL;
}

/* The next cost at which account() must look again: a step of charge, or
 * the maximum. */
static size_t next_look(const sb_lua_conv *c) {
    size_t step = c->charged + SB_LUA_CHARGE_STEP;
    return step < (size_t)SB_LUA_MAX_CONVERSION + 1 ? step : (size_t)SB_LUA_MAX_CONVERSION + 1;
}

/* account() past c->next: the maximum, and the charge of another step. */
static __attribute__((noinline)) int account_step(lua_State *L, sb_lua_conv *c, size_t bytes) {
    if (bytes > SB_LUA_MAX_CONVERSION - c->cost) {
        fail(c, "the value is too large to cross to C: more than %d MiB once expanded (a table held n times "
                "counts n times)", (int)(SB_LUA_MAX_CONVERSION >> 20));
        return 0;
    }
    c->cost += bytes;
    if (c->cost - c->charged >= SB_LUA_CHARGE_STEP) {
        if (!sb_lua_charge(L, (long long)(c->cost - c->charged))) {
            fail(c, "the value does not fit in the memory budget of this Lua state");
            return 0;
        }
        c->charged = c->cost;
    }
    c->next = next_look(c);
    return 1;
}

/* Adds `bytes` to what the conversion costs: 0 (with the error set) past
 * SB_LUA_MAX_CONVERSION or when the host refuses the charge. Raises
 * nothing, allocates nothing. Inline: it runs for every value and key, and
 * almost always only adds. */
static inline int account(lua_State *L, sb_lua_conv *c, size_t bytes) {
    if (__builtin_expect(bytes < c->next - c->cost, 1)) {
        c->cost += bytes;
        return 1;
    }
    return account_step(L, c, bytes);
}

void sb_lua_conv_uncharge(lua_State *L, sb_lua_conv *c) {
    if (c->charged > 0) (void)sb_lua_charge(L, -(long long)c->charged);
    c->charged = 0;
    c->next = next_look(c);
}

/* Describes the key at `idx` for an error message. */
static const char *describe_key(lua_State *L, int idx, char *buffer, size_t size) {
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) {
            snprintf(buffer, size, "%lld (a number)", (long long)lua_tointeger(L, idx));
        } else {
            snprintf(buffer, size, "%g (a number)", (double)lua_tonumber(L, idx));
        }
        return buffer;
    case LUA_TBOOLEAN:
        return lua_toboolean(L, idx) ? "true (a boolean)" : "false (a boolean)";
    default:
        snprintf(buffer, size, "of type %s", luaL_typename(L, idx));
        return buffer;
    }
}

/* The first missing index of a table whose keys are all integers >= 1 but
 * not 1..n (a sequence with holes, such as {1, nil, 3}), or 0 for any other
 * table. Only for the message of a failed conversion: it walks the table. */
static lua_Integer first_hole(lua_State *L, int idx) {
    lua_Integer max = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1) {
            lua_pop(L, 1);
            return 0;
        }
        if (lua_tointeger(L, -1) > max) max = lua_tointeger(L, -1);
    }
    for (lua_Integer i = 1; i < max; i++) {
        int missing = lua_rawgeti(L, idx, i) == LUA_TNIL;
        lua_pop(L, 1);
        if (missing) return i;
    }
    return 0;
}

/* Whether the table at `idx` has sb.array's marker metatable. */
static int marked_array(lua_State *L, int idx) {
    if (!lua_getmetatable(L, idx)) return 0;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &array_mt_key);
    int marked = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return marked;
}

/* A table is an array when its keys are exactly 1..n with n >= 1, or when
 * it is marked by sb.array and its keys are exactly 1..n (n may be 0). A
 * first key that is a string settles it at once (a dict): that key and its
 * value stay on the stack, *resume set, and fill() starts from them instead
 * of asking lua_next for them again (a lua_next costs about 150
 * instructions). No allocation. */
static int is_array(lua_State *L, int idx, lua_Integer *n, int *resume) {
    lua_Integer count = 0, max = 0;
    int integers_only = 1;
    *resume = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (count == 0 && lua_type(L, -2) == LUA_TSTRING) {
            *n = 0;
            *resume = 1;
            return 0;
        }
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TNUMBER && lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1) {
            lua_Integer k = lua_tointeger(L, -1);
            if (k > max) max = k;
        } else {
            integers_only = 0;
            lua_pop(L, 1);
            break;
        }
        count++;
    }
    *n = max;
    return integers_only && count == max && (count > 0 || marked_array(L, idx));
}

/* A new value for the Lua value at `idx`. For a table: an empty container
 * of the right kind (`*table` set), which the caller attaches to its parent
 * and only then fills, so that `root` owns everything built at any moment. */
/* make() runs for every value: inlined into its callers it costs a good deal
 * less (callgrind: about 50 instructions per dict entry), and the compiler
 * stops doing so by itself once fill() grows. */
#if defined(__GNUC__)
#define SB_LUA_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define SB_LUA_ALWAYS_INLINE inline
#endif

/* A table's first key and value may be left on the stack for fill() (see
 * is_array): then *resume is set, and only when the container was made. */
static SB_LUA_ALWAYS_INLINE sb_value *make(lua_State *L, int idx, sb_lua_conv *c, int depth, int *table, int *array,
                                           lua_Integer *n, int *resume) {
    sb_value *v;
    *table = 0;
    *resume = 0;
    size_t length = 0;
    const int type = lua_type(L, idx); /* once: each lua_type is a call into Lua */
    const char *s = type == LUA_TSTRING ? lua_tolstring(L, idx, &length) : NULL;
    if (!account(L, c, SB_LUA_CONVERT_VALUE_COST + length)) return NULL;
    switch (type) {
    case LUA_TNIL:
        v = sb_null();
        break;
    case LUA_TBOOLEAN:
        v = sb_bool(lua_toboolean(L, idx));
        break;
    case LUA_TNUMBER:
        v = lua_isinteger(L, idx) ? sb_int(lua_tointeger(L, idx)) : sb_double(lua_tonumber(L, idx));
        break;
    case LUA_TSTRING: {
        v = sb_string_n(s, length);
        if (v == NULL) v = sb_bytes(s, length); /* not valid UTF-8: bytes */
        break;
    }
    case LUA_TLIGHTUSERDATA: {
        void *p = lua_touserdata(L, idx);
        v = p == &sb_lua_null ? sb_null() : sb_pointer(p, NULL);
        break;
    }
    case LUA_TUSERDATA: {
        sb_value *held = sb_lua_test_cvalue(L, idx);
        if (held == NULL) return fail(c, "a %s userdata cannot cross to C", luaL_typename(L, idx));
        v = sb_value_retain(held);
        break;
    }
    case LUA_TFUNCTION: {
        if (!c->allow_functions) {
            c->met_function = 1;
            return fail(c, "a function (to be converted in protected mode)");
        }
        sb_lua_fn *fn = sb_lua_fn_new(c->ctx, L, idx);
        if (fn == NULL) return fail(c, "out of memory");
        v = sb_callback_new(sb_lua_fn_call, fn, sb_lua_fn_free); /* frees fn if it fails */
        break;
    }
    case LUA_TTABLE: {
        if (depth >= SB_MAX_DEPTH) return fail(c, "tables nest deeper than SB_MAX_DEPTH (%d)", SB_MAX_DEPTH);
        const void *self = lua_topointer(L, idx);
        for (int i = 0; i < depth; i++) {
            if (c->path[i] == self) return fail(c, "a table contains itself (a cycle)");
        }
        c->path[depth] = self;
        if (!lua_checkstack(L, 4)) return fail(c, "Lua stack overflow converting a table");
        *array = is_array(L, idx, n, resume);
        *table = 1;
        v = *array ? sb_array_new() : sb_dict_new();
        if (v == NULL && *resume) {
            lua_pop(L, 2);
            *resume = 0;
        }
        break;
    }
    default:
        return fail(c, "a %s cannot cross to C", luaL_typename(L, idx));
    }
    return v != NULL ? v : fail(c, "out of memory");
}

/* ------------------------------------------------------------- key order */

/* The key orders of tables made from dicts: a weak-keyed table, in the
 * registry at ctx->orders_ref, mapping such a table to the array of the
 * dict's keys, in order, when that order is not byte order (the order a table
 * without a record converts in). Only the module reaches it: scripts cannot
 * see or change a record, and the tables get no metatable. */

/* Pushes the order table; creates it on first use. */
static void push_orders(lua_State *L, sb_lua_ctx *ctx) {
    if (ctx->orders_ref != LUA_NOREF) {
        if (lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->orders_ref) == LUA_TTABLE) return;
        lua_pop(L, 1); /* not ours any more (the debug library reaches the registry): a new one */
    }
    lua_createtable(L, 0, 0);
    lua_createtable(L, 0, 2);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    sb_lua_lock_metatable(L, "switchboard.orders");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    ctx->orders_ref = luaL_ref(L, LUA_REGISTRYINDEX);
}

/* Byte order; a key that is a prefix of another comes first. Keys are short:
 * a loop costs less than a call to memcmp. */
static int key_less(const sb_lua_entry *a, const sb_lua_entry *b) {
    const unsigned char *x = (const unsigned char *)a->key, *y = (const unsigned char *)b->key;
    size_t n = a->length < b->length ? a->length : b->length;
    for (size_t i = 0; i < n; i++) {
        if (x[i] != y[i]) return x[i] < y[i];
    }
    return a->length < b->length;
}

/* Sorts `n` entries by key: insertion sort for a few, a bottom-up merge sort
 * (with `scratch`, room for n) beyond. No recursion, worst case n log n. */
static void sort_entries(sb_lua_entry *e, sb_lua_entry *scratch, size_t n) {
    if (n <= 16) {
        for (size_t i = 1; i < n; i++) {
            sb_lua_entry k = e[i];
            size_t j = i;
            for (; j > 0 && key_less(&k, &e[j - 1]); j--) e[j] = e[j - 1];
            e[j] = k;
        }
        return;
    }
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) scratch[k++] = key_less(&e[j], &e[i]) ? e[j++] : e[i++];
            while (i < mid) scratch[k++] = e[i++];
            while (j < hi) scratch[k++] = e[j++];
        }
        memcpy(e, scratch, n * sizeof *e);
    }
}

/* Room for one more entry on the pending stack (and as many again, for the
 * merge sort's scratch). 0 when memory runs out. */
static int grow(sb_lua_conv *c) {
    size_t need = 2 * (c->entry_count + 1);
    size_t capacity = c->entry_capacity * 2 > need ? c->entry_capacity * 2 : need;
    sb_lua_entry *grown = malloc(capacity * sizeof *grown);
    if (grown == NULL) return 0;
    memcpy(grown, c->entries, c->entry_count * sizeof *grown);
    if (c->entries != c->inline_entries) free(c->entries);
    c->entries = grown;
    c->entry_capacity = capacity;
    return 1;
}

/* Releases the pending entries from `base` on (inserted ones are NULL). */
static void drop_entries(sb_lua_conv *c, size_t base) {
    while (c->entry_count > base) {
        sb_lua_entry *e = &c->entries[--c->entry_count];
        if (e->value != NULL) sb_value_release(e->value);
        if (e->copy != NULL) free(e->copy);
    }
}

/* Whether the table at `idx` has weak values (a metatable whose __mode has
 * "v"). Raw reads only: runs no Lua code, allocates nothing ("__mode" is one
 * of Lua's own strings). */
static int has_weak_values(lua_State *L, int idx) {
    if (!lua_getmetatable(L, idx)) return 0;
    lua_pushliteral(L, "__mode");
    int weak = lua_rawget(L, -2) == LUA_TSTRING && strchr(lua_tostring(L, -1), 'v') != NULL;
    lua_pop(L, 2);
    return weak;
}

/* The entry among e[0..n) (sorted) whose key is the string at `idx`, or NULL. */
static sb_lua_entry *find_entry(lua_State *L, int idx, sb_lua_entry *e, size_t n) {
    sb_lua_entry k;
    k.key = lua_tolstring(L, idx, &k.length);
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_less(&e[mid], &k)) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < n && !key_less(&k, &e[lo]) ? &e[lo] : NULL;
}

/* Puts `e` into `t` (its value stolen, even on failure). */
static int insert(sb_value *t, sb_lua_entry *e, sb_lua_conv *c) {
    sb_value *v = e->value;
    e->value = NULL;
    int ok = sb_dict_set_new(t, e->key, v) == SB_OK;
    if (!ok) fail(c, "table key \"%.40s\": %s", e->key, sb_error_message());
    if (e->copy != NULL) { /* the dict has its own copy */
        free(e->copy);
        e->copy = NULL;
    }
    return ok;
}

/* The table at `idx` was made from a dict whose key order is recorded: pushes
 * that record (an array of keys) and returns 1; else pushes nothing, 0. Reads
 * without creating anything: nothing here may allocate in Lua. */
static int push_record(lua_State *L, int idx, const sb_lua_conv *c) {
    if (c->ctx == NULL || c->ctx->orders_ref == LUA_NOREF) return 0;
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, c->ctx->orders_ref) != LUA_TTABLE) {
        lua_pop(L, 1);
        return 0;
    }
    lua_pushvalue(L, idx);
    if (lua_rawget(L, -2) == LUA_TTABLE) {
        lua_remove(L, -2);
        return 1;
    }
    lua_pop(L, 2);
    return 0;
}

/* Moves the pending entries from `base` on into the dict `t`, in their order
 * (see the top of this file). Runs no Lua code and raises no error. */
static int insert_entries(lua_State *L, int idx, sb_value *t, sb_lua_conv *c, size_t base) {
    sb_lua_entry *e = c->entries + base;
    size_t n = c->entry_count - base;
    int ok = 1;
    if (n > 1 && push_record(L, idx, c)) {
        /* The dict's keys first, those the table still has; then the rest. */
        sort_entries(e, c->entries + c->entry_count, n); /* grow() left room */
        lua_Integer count = (lua_Integer)lua_rawlen(L, -1);
        for (lua_Integer i = 1; ok && i <= count; i++) {
            sb_lua_entry *found = lua_rawgeti(L, -1, i) == LUA_TSTRING ? find_entry(L, -1, e, n) : NULL;
            if (found != NULL && found->value != NULL) ok = insert(t, found, c);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        for (size_t i = 0; ok && i < n; i++) {
            if (e[i].value != NULL) ok = insert(t, &e[i], c);
        }
    } else if (n > 1 && n <= 16) {
        /* A few keys: sort their positions (a sorted table costs n - 1
         * comparisons), and insert in that order. */
        unsigned char order[16];
        for (size_t i = 0; i < n; i++) {
            size_t j = i;
            for (; j > 0 && key_less(&e[i], &e[order[j - 1]]); j--) order[j] = order[j - 1];
            order[j] = (unsigned char)i;
        }
        for (size_t i = 0; ok && i < n; i++) ok = insert(t, &e[order[i]], c);
    } else {
        if (n > 1) sort_entries(e, c->entries + c->entry_count, n);
        for (size_t i = 0; ok && i < n; i++) ok = insert(t, &e[i], c);
    }
    if (ok) {
        c->entry_count = base; /* every value went into `t` */
    } else {
        drop_entries(c, base);
    }
    return ok;
}

/* Fills the container `t` (borrowed: already attached) from the table at
 * `idx`; with `resume`, a dict's first key and value are on the stack's top
 * (make). Either way it leaves the stack as it was before make(). */
static int fill(lua_State *L, int idx, sb_value *t, int array, lua_Integer n, sb_lua_conv *c, int depth, int resume) {
    int table, child_array = 0, child_resume = 0;
    lua_Integer child_n;
    if (array) {
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, idx, i);
            int at = lua_gettop(L);
            sb_value *v = make(L, at, c, depth + 1, &table, &child_array, &child_n, &child_resume);
            if (v == NULL || sb_array_append_new(t, v) != SB_OK) {
                if (v != NULL) fail(c, "%s", sb_error_message());
                lua_settop(L, at - 1); /* the element, and a key and value make() left */
                return 0;
            }
            if (table && !fill(L, at, v, child_array, child_n, c, depth + 1, child_resume)) {
                lua_pop(L, 1);
                return 0;
            }
            lua_pop(L, 1);
        }
        return 1;
    }
    /* A dict: each value is converted as lua_next gives it and waits on the
     * pending stack (which owns it), then all go into `t` in their order.
     * The keys stay the table's strings, which the table keeps alive; but
     * converting a function can collect garbage (its registry reference
     * allocates), and a table with weak values may then drop an entry whose
     * value was collected, and with it the key: such a table's keys are
     * copied. */
    char described[64];
    const size_t base = c->entry_count;
    const int copy_keys = c->allow_functions && has_weak_values(L, idx);
    if (!resume) lua_pushnil(L);
    const int at = resume ? lua_gettop(L) : lua_gettop(L) + 1; /* where each value lands; its key is below */
    for (int more = resume || lua_next(L, idx); more; more = lua_next(L, idx)) {
        if (lua_type(L, at - 1) != LUA_TSTRING) {
            const char *what = describe_key(L, at - 1, described, sizeof described);
            lua_pop(L, 2);
            lua_Integer hole = first_hole(L, idx); /* {1, nil, 3}: the nil is the problem */
            if (hole > 0) {
                fail(c, "the array has a hole at index %lld (a nil): use sb.null for a null element", (long long)hole);
            } else {
                fail(c, "table key %s is not a string: a table becomes a dict only with string keys, "
                        "or an array with keys 1..n", what);
            }
            drop_entries(c, base);
            return 0;
        }
        sb_lua_entry *e;
        if (2 * (c->entry_count + 1) > c->entry_capacity && !grow(c)) {
            fail(c, "out of memory");
            lua_pop(L, 2);
            drop_entries(c, base);
            return 0;
        }
        e = &c->entries[c->entry_count];
        e->key = lua_tolstring(L, at - 1, &e->length);
        e->value = NULL;
        e->copy = NULL;
        if (!account(L, c, SB_LUA_CONVERT_KEY_COST + e->length)) {
            lua_pop(L, 2);
            drop_entries(c, base);
            return 0;
        }
        if (strlen(e->key) != e->length) {
            fail(c, "table key \"%.40s...\" contains a NUL byte", e->key);
            lua_pop(L, 2);
            drop_entries(c, base);
            return 0;
        }
        if (copy_keys) {
            e->copy = malloc(e->length + 1);
            if (e->copy == NULL) {
                fail(c, "out of memory");
                lua_pop(L, 2);
                drop_entries(c, base);
                return 0;
            }
            memcpy(e->copy, e->key, e->length + 1);
            e->key = e->copy;
        }
        c->entry_count++; /* from here the entry owns its copy and its value */
        e->value = make(L, at, c, depth + 1, &table, &child_array, &child_n, &child_resume); /* may raise */
        if (e->value == NULL) {
            lua_pop(L, 2);
            drop_entries(c, base);
            return 0;
        }
        if (table && !fill(L, at, e->value, child_array, child_n, c, depth + 1, child_resume)) {
            lua_pop(L, 2);
            drop_entries(c, base);
            return 0;
        }
        lua_pop(L, 1);
    }
    return insert_entries(L, idx, t, c, base);
}

/* sb_lua_to_value, keeping the charge if `keep` and it succeeds. */
static sb_value *convert(lua_State *L, int idx, sb_lua_conv *c, int keep) {
    int table, array, resume, ok = 1;
    lua_Integer n;
    idx = lua_absindex(L, idx);
    c->error[0] = '\0';
    c->met_function = 0;
    c->keep_charge = keep;
    c->cost = 0;
    c->charged = 0;
    c->next = next_look(c);
    c->entries = c->inline_entries;
    c->entry_count = 0;
    c->entry_capacity = sizeof c->inline_entries / sizeof c->inline_entries[0];
    c->root = make(L, idx, c, 0, &table, &array, &n, &resume);
    if (c->root != NULL && table) ok = fill(L, idx, c->root, array, n, c, 0, resume);
    if (c->entries != c->inline_entries) free(c->entries); /* nothing is pending now */
    c->entries = NULL;
    if (c->root == NULL || !ok || !keep) sb_lua_conv_uncharge(L, c); /* checked while it grew */
    if (c->root == NULL || !ok) return NULL;
    sb_value *v = c->root;
    c->root = NULL;
    return v;
}

sb_value *sb_lua_to_value(lua_State *L, int idx, sb_lua_conv *c) {
    return convert(L, idx, c, 0);
}

void sb_lua_conv_abandon(sb_lua_conv *c) {
    sb_value_release(c->root);
    c->root = NULL;
    /* It raised (in protected mode): the caller's state gives the charge back. */
    if (c->entries == NULL) return;
    for (size_t i = 0; i < c->entry_count; i++) {
        sb_value_release(c->entries[i].value);
        free(c->entries[i].copy);
    }
    if (c->entries != c->inline_entries) free(c->entries);
    c->entries = NULL;
    c->entry_count = 0;
}

/* ---------------------------------------------------------------- safely */

static int protected_convert(lua_State *L) {
    sb_lua_conv *c = lua_touserdata(L, 2);
    lua_pushlightuserdata(L, convert(L, 1, c, c->keep_charge));
    return 1;
}

static sb_value *convert_safely(lua_State *L, int idx, sb_lua_conv *c, int keep) {
    c->allow_functions = 0;
    sb_value *v = convert(L, idx, c, keep);
    if (v != NULL || !c->met_function) {
        if (v == NULL) {
            sb_value_release(c->root);
            c->root = NULL;
        }
        return v;
    }
    /* It holds a function: the registry reference can fail with a memory
     * error, so convert again in protected mode. */
    sb_value_release(c->root);
    c->root = NULL;
    c->allow_functions = 1;
    idx = lua_absindex(L, idx);
    lua_pushcfunction(L, protected_convert);
    lua_pushvalue(L, idx);
    lua_pushlightuserdata(L, c);
    if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
        sb_lua_conv_abandon(c); /* what was built, and what was pending */
        sb_lua_conv_uncharge(L, c);
        lua_error(L); /* no Swift frame between here and the caller's pcall */
    }
    v = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (v == NULL) {
        sb_value_release(c->root);
        c->root = NULL;
    }
    return v;
}

sb_value *sb_lua_to_value_safely(lua_State *L, int idx, sb_lua_conv *c) {
    return convert_safely(L, idx, c, 0);
}

sb_value *sb_lua_to_value_charged(lua_State *L, int idx, sb_lua_conv *c) {
    return convert_safely(L, idx, c, 1);
}

sb_value *sb_lua_opt_table(lua_State *L, sb_lua_ctx *ctx, int idx, size_t *cost) {
    if (cost != NULL) *cost = 0;
    if (lua_isnoneornil(L, idx)) return NULL;
    luaL_checktype(L, idx, LUA_TTABLE);
    sb_lua_conv conv;
    conv.ctx = ctx;
    sb_value *v = sb_lua_to_value_safely(L, idx, &conv);
    if (v == NULL) luaL_argerror(L, idx, conv.error);
    if (cost != NULL) *cost = conv.cost;
    return v;
}

sb_value *sb_lua_check_params(lua_State *L, sb_lua_ctx *ctx, int idx, sb_lua_conv *conv) {
    conv->ctx = ctx;
    conv->charged = 0;
    if (lua_type(L, idx) != LUA_TTABLE) return NULL;
    sb_value *params = sb_lua_to_value_charged(L, idx, conv);
    if (params == NULL) luaL_argerror(L, idx, conv->error);
    return params;
}

/* ---------------------------------------------------------------- C -> Lua */

/* Pushes the scalar `v` of type `type` (anything else: nil). */
static void push_scalar_typed(lua_State *L, const sb_value *v, sb_type type) {
    int b;
    int64_t i;
    double d;
    switch (type) {
    case SB_BOOL:
        sb_value_get_bool(v, &b);
        lua_pushboolean(L, b);
        break;
    case SB_INT:
        sb_value_get_int(v, &i);
        lua_pushinteger(L, (lua_Integer)i);
        break;
    case SB_DOUBLE:
        sb_value_get_double(v, &d);
        lua_pushnumber(L, (lua_Number)d);
        break;
    default:
        lua_pushnil(L);
        break;
    }
}

/* Remembers the order of dict `v`'s keys for the table on top of the stack
 * (see insert_entries). */
static void record_order(lua_State *L, sb_lua_ctx *ctx, const sb_value *v, size_t count) {
    const char *key;
    push_orders(L, ctx);
    lua_pushvalue(L, -2);
    lua_createtable(L, count > INT32_MAX ? 0 : (int)count, 0);
    for (size_t i = 0; i < count; i++) {
        sb_dict_at(v, i, &key, NULL);
        lua_pushstring(L, key);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

/* sb_lua_push_value with v's type known. The stack is checked once per
 * container, before its table, for the table, a key and a value: a scalar
 * needs one slot, which its container's check (or, at the top, the caller's
 * frame) already gave. */
static void push_typed(lua_State *L, sb_lua_ctx *ctx, const sb_value *v, sb_type type, int depth) {
    size_t length, count;
    const char *s;
    switch (type) {
    case SB_NULL:
        if (depth == 0) {
            lua_pushnil(L);
        } else {
            lua_pushlightuserdata(L, (void *)&sb_lua_null);
        }
        break;
    case SB_STRING:
        s = sb_value_get_string(v, &length);
        lua_pushlstring(L, s, length);
        break;
    case SB_BYTES:
        s = sb_value_get_bytes(v, &length);
        lua_pushlstring(L, s, length);
        break;
    case SB_ARRAY:
        if (!lua_checkstack(L, 4)) luaL_error(L, "switchboard: values nest too deep for the Lua stack");
        count = sb_value_count(v);
        lua_createtable(L, count > INT32_MAX ? 0 : (int)count, 0);
        for (size_t i = 0; i < count; i++) {
            const sb_value *item = sb_array_get(v, i);
            push_typed(L, ctx, item, sb_value_type(item), depth + 1);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        sb_lua_push_array_mt(L);
        lua_setmetatable(L, -2);
        break;
    case SB_DICT: {
        const char *key, *previous = NULL;
        sb_value *item;
        int sorted = 1;
        if (!lua_checkstack(L, 4)) luaL_error(L, "switchboard: values nest too deep for the Lua stack");
        count = sb_value_count(v);
        lua_createtable(L, 0, count > INT32_MAX ? 0 : (int)count);
        for (size_t i = 0; i < count; i++) {
            sb_dict_at(v, i, &key, &item);
            if (previous != NULL && strcmp(previous, key) >= 0) sorted = 0;
            previous = key;
            lua_pushstring(L, key);
            push_typed(L, ctx, item, sb_value_type(item), depth + 1);
            lua_rawset(L, -3);
        }
        if (!sorted && ctx != NULL) record_order(L, ctx, v, count);
        break;
    }
    case SB_CALLBACK:
    case SB_POINTER:
        sb_lua_push_cvalue(L, ctx, (sb_value *)v);
        break;
    default:
        push_scalar_typed(L, v, type);
        break;
    }
}

void sb_lua_push_value(lua_State *L, sb_lua_ctx *ctx, const sb_value *v, int depth) {
    if (!lua_checkstack(L, 4)) luaL_error(L, "switchboard: values nest too deep for the Lua stack");
    push_typed(L, ctx, v, sb_value_type(v), depth);
}

static int protected_push(lua_State *L) {
    sb_lua_push_value(L, lua_touserdata(L, 2), lua_touserdata(L, 1), 0);
    return 1;
}

/* The result of a call that succeeded. Null comes back as sb.null, not
 * nil: `nil` is what a failure starts with, so `assert(sb.perform(...))`
 * holds for an action that answers nothing (docs/lua.md, sb.null). */
void sb_lua_push_result(lua_State *L, sb_lua_ctx *ctx, sb_value *v) {
    const sb_type type = v == NULL ? SB_NULL : sb_value_type(v);
    if (type == SB_NULL) {
        lua_pushlightuserdata(L, (void *)&sb_lua_null);
        sb_value_release(v);
        return;
    }
    if (type == SB_BOOL || type == SB_INT || type == SB_DOUBLE) {
        push_scalar_typed(L, v, type);
        sb_value_release(v);
        return;
    }
    /* Pushing allocates and can raise: do it protected, release either way. */
    lua_pushcfunction(L, protected_push);
    lua_pushlightuserdata(L, v);
    lua_pushlightuserdata(L, ctx);
    int rc = lua_pcall(L, 2, 1, 0);
    sb_value_release(v);
    if (rc != LUA_OK) lua_error(L);
}
