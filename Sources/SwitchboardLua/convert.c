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
 *   any other table              dict: keys must be strings; {} is an empty dict
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
#include <string.h>

const char sb_lua_null = 0;

/* The registry key of the array marker metatable. */
static const char array_mt_key = 0;

void sb_lua_push_array_mt(lua_State *L) {
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &array_mt_key) == LUA_TTABLE) return;
    lua_pop(L, 1);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "switchboard.array");
    lua_setfield(L, -2, "__name");
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
 * first key that is a string settles it at once (a dict). No allocation. */
static int is_array(lua_State *L, int idx, lua_Integer *n) {
    lua_Integer count = 0, max = 0;
    int integers_only = 1;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
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
static sb_value *make(lua_State *L, int idx, sb_lua_conv *c, int depth, int *table, int *array, lua_Integer *n) {
    sb_value *v;
    *table = 0;
    switch (lua_type(L, idx)) {
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
        size_t length;
        const char *s = lua_tolstring(L, idx, &length);
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
        v = sb_retain(held);
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
        *array = is_array(L, idx, n);
        *table = 1;
        v = *array ? sb_array_new() : sb_dict_new();
        break;
    }
    default:
        return fail(c, "a %s cannot cross to C", luaL_typename(L, idx));
    }
    return v != NULL ? v : fail(c, "out of memory");
}

/* Fills the container `t` (borrowed: already attached) from the table at `idx`. */
static int fill(lua_State *L, int idx, sb_value *t, int array, lua_Integer n, sb_lua_conv *c, int depth) {
    int table, child_array;
    lua_Integer child_n;
    if (array) {
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, idx, i);
            int at = lua_gettop(L);
            sb_value *v = make(L, at, c, depth + 1, &table, &child_array, &child_n);
            if (v == NULL || sb_array_append_new(t, v) != SB_OK) {
                if (v != NULL) fail(c, "%s", sb_last_error());
                lua_pop(L, 1);
                return 0;
            }
            if (table && !fill(L, at, v, child_array, child_n, c, depth + 1)) {
                lua_pop(L, 1);
                return 0;
            }
            lua_pop(L, 1);
        }
        return 1;
    }
    char described[64];
    lua_pushnil(L);
    const int at = lua_gettop(L) + 1; /* where each value lands; its key is below */
    while (lua_next(L, idx)) {
        if (lua_type(L, at - 1) != LUA_TSTRING) {
            fail(c, "table key %s is not a string: a table becomes a dict only with string keys, "
                    "or an array with keys 1..n", describe_key(L, at - 1, described, sizeof described));
            lua_pop(L, 2);
            return 0;
        }
        size_t length;
        const char *key = lua_tolstring(L, at - 1, &length);
        if (strlen(key) != length) {
            fail(c, "table key \"%s...\" contains a NUL byte", key);
            lua_pop(L, 2);
            return 0;
        }
        sb_value *v = make(L, at, c, depth + 1, &table, &child_array, &child_n);
        if (v == NULL || sb_dict_set_new(t, key, v) != SB_OK) {
            if (v != NULL) fail(c, "table key \"%.40s\": %s", key, sb_last_error());
            lua_pop(L, 2);
            return 0;
        }
        if (table && !fill(L, at, v, child_array, child_n, c, depth + 1)) {
            lua_pop(L, 2);
            return 0;
        }
        lua_pop(L, 1);
    }
    return 1;
}

sb_value *sb_lua_to_value(lua_State *L, int idx, sb_lua_conv *c) {
    int table, array;
    lua_Integer n;
    idx = lua_absindex(L, idx);
    c->error[0] = '\0';
    c->met_function = 0;
    c->root = make(L, idx, c, 0, &table, &array, &n);
    if (c->root == NULL) return NULL;
    if (table && !fill(L, idx, c->root, array, n, c, 0)) return NULL;
    sb_value *v = c->root;
    c->root = NULL;
    return v;
}

/* ---------------------------------------------------------------- safely */

static int protected_convert(lua_State *L) {
    sb_lua_conv *c = lua_touserdata(L, 2);
    lua_pushlightuserdata(L, sb_lua_to_value(L, 1, c));
    return 1;
}

sb_value *sb_lua_to_value_safely(lua_State *L, int idx, sb_lua_conv *c) {
    c->allow_functions = 0;
    sb_value *v = sb_lua_to_value(L, idx, c);
    if (v != NULL || !c->met_function) {
        if (v == NULL) {
            sb_release(c->root);
            c->root = NULL;
        }
        return v;
    }
    /* It holds a function: the registry reference can fail with a memory
     * error, so convert again in protected mode. */
    sb_release(c->root);
    c->root = NULL;
    c->allow_functions = 1;
    idx = lua_absindex(L, idx);
    lua_pushcfunction(L, protected_convert);
    lua_pushvalue(L, idx);
    lua_pushlightuserdata(L, c);
    if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
        sb_release(c->root);
        c->root = NULL;
        lua_error(L); /* no Swift frame between here and the caller's pcall */
    }
    v = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (v == NULL) {
        sb_release(c->root);
        c->root = NULL;
    }
    return v;
}

/* ---------------------------------------------------------------- C -> Lua */

int sb_lua_is_scalar(const sb_value *v) {
    sb_type t = sb_typeof(v);
    return t == SB_NULL || t == SB_BOOL || t == SB_INT || t == SB_DOUBLE;
}

void sb_lua_push_scalar(lua_State *L, const sb_value *v) {
    int b;
    int64_t i;
    double d;
    switch (sb_typeof(v)) {
    case SB_BOOL:
        sb_get_bool(v, &b);
        lua_pushboolean(L, b);
        break;
    case SB_INT:
        sb_get_int(v, &i);
        lua_pushinteger(L, (lua_Integer)i);
        break;
    case SB_DOUBLE:
        sb_get_double(v, &d);
        lua_pushnumber(L, (lua_Number)d);
        break;
    default:
        lua_pushnil(L);
        break;
    }
}

void sb_lua_push_value(lua_State *L, const sb_value *v, int depth) {
    size_t length, count;
    const char *s;
    if (!lua_checkstack(L, 4)) luaL_error(L, "switchboard: values nest too deep for the Lua stack");
    switch (sb_typeof(v)) {
    case SB_NULL:
        if (depth == 0) {
            lua_pushnil(L);
        } else {
            lua_pushlightuserdata(L, (void *)&sb_lua_null);
        }
        break;
    case SB_STRING:
        s = sb_get_string(v, &length);
        lua_pushlstring(L, s, length);
        break;
    case SB_BYTES:
        s = sb_get_bytes(v, &length);
        lua_pushlstring(L, s, length);
        break;
    case SB_ARRAY:
        count = sb_count(v);
        lua_createtable(L, count > INT32_MAX ? 0 : (int)count, 0);
        for (size_t i = 0; i < count; i++) {
            sb_lua_push_value(L, sb_array_get(v, i), depth + 1);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        sb_lua_push_array_mt(L);
        lua_setmetatable(L, -2);
        break;
    case SB_DICT: {
        const char *key;
        sb_value *item;
        count = sb_count(v);
        lua_createtable(L, 0, count > INT32_MAX ? 0 : (int)count);
        for (size_t i = 0; i < count; i++) {
            sb_dict_at(v, i, &key, &item);
            lua_pushstring(L, key);
            sb_lua_push_value(L, item, depth + 1);
            lua_rawset(L, -3);
        }
        break;
    }
    case SB_CALLBACK:
    case SB_POINTER:
        sb_lua_push_cvalue(L, (sb_value *)v);
        break;
    default:
        sb_lua_push_scalar(L, v);
        break;
    }
}

static int protected_push(lua_State *L) {
    sb_lua_push_value(L, lua_touserdata(L, 1), 0);
    return 1;
}

void sb_lua_push_result(lua_State *L, sb_value *v) {
    if (sb_lua_is_scalar(v)) {
        sb_lua_push_scalar(L, v);
        sb_release(v);
        return;
    }
    /* Pushing allocates and can raise: do it protected, release either way. */
    lua_pushcfunction(L, protected_push);
    lua_pushlightuserdata(L, v);
    int rc = lua_pcall(L, 1, 1, 0);
    sb_release(v);
    if (rc != LUA_OK) lua_error(L);
}
