/*
 * Memory the library holds on a Lua state's behalf, reported to the host
 * (sb_lua_set_charge), so that a host that limits the state's memory through
 * its allocator (switchboard run --max-memory) can count it too. The library
 * allocates with malloc, outside the state's allocator; these are estimates
 * of what it keeps, made where the module hands it something:
 *
 *   a value converted from Lua       CONVERT_VALUE_COST per value, plus the
 *                                    bytes of its strings and keys, while
 *                                    the conversion runs (and, for perform's
 *                                    and open's params, until the call ends)
 *   a target registered from Lua     REGISTRATION_COST, plus NAME_COPIES
 *                                    times its name, plus per action
 *                                    ACTION_COST, its name twice and its
 *                                    contract; given back by sb.unregister
 *   a route pattern (to a target or  REGISTRATION_COST plus NAME_COPIES times
 *   a handler)                       the pattern; given back by sb.remove_url_pattern
 *                                    and sb.remove_url_patterns
 *   a scheme (to targets or a        REGISTRATION_COST plus NAME_COPIES times
 *   handler)                         the name; given back by sb.scheme(n, false)
 *   an unmatched-URL fallback, a     REGISTRATION_COST plus NAME_COPIES times
 *   URL converter                    the scheme or type; given back by
 *                                    sb.unmatched(s, false), sb.converter(t, false)
 *   an interceptor                   REGISTRATION_COST plus NAME_COPIES times
 *                                    its name; given back by sb.unintercept
 *   an observer                      REGISTRATION_COST; given back by
 *                                    sb.unobserve
 *   the rules, the URL policy        REGISTRATION_COST plus NAME_COPIES times
 *                                    their text (the policy: its conversion's
 *                                    cost); replaced with them
 *   a service (sb.service)           REGISTRATION_COST plus NAME_COPIES times
 *                                    its name and its interface text, charged
 *                                    before it is defined; replaced with it,
 *                                    given back by sb.remove_service
 *   a service's binding              NAME_COPIES times the target's name;
 *                                    replaced with it, given back by
 *                                    unbinding or sb.remove_service
 *   a call made from a coroutine     WAIT_COST (what waits for its answer),
 *                                    given back when the coroutine is
 *                                    collected or the state closes
 *
 * Each charge is remembered under its kind and its name (SB_LUA_CHARGE_*):
 * the key is the kind's byte, a NUL byte and the name, which no name can
 * spell (names end at their first NUL), so no kind of name can give back
 * another's charge.
 */
#include "internal.h"

#include <string.h>

/* The registry keys: the host's charge function, and the table of what each
 * registered name was charged (name -> bytes). */
static const char charge_key = 0;
static const char charged_key = 0;

typedef struct charger {
    int (*charge)(void *userdata, long long bytes);
    void *userdata;
} charger;

void sb_lua_set_charge(lua_State *L, int (*charge)(void *userdata, long long bytes), void *userdata) {
    if (charge == NULL) {
        lua_pushnil(L);
    } else {
        charger *c = lua_newuserdatauv(L, sizeof *c, 0);
        c->charge = charge;
        c->userdata = userdata;
    }
    lua_rawsetp(L, LUA_REGISTRYINDEX, &charge_key);
}

int sb_lua_charge(lua_State *L, long long bytes) {
    if (bytes == 0) return 1;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &charge_key);
    charger *c = lua_type(L, -1) == LUA_TUSERDATA ? lua_touserdata(L, -1) : NULL;
    lua_pop(L, 1);
    return c == NULL || c->charge(c->userdata, bytes);
}

/* The table of charged names; created on first use (may raise). */
static void push_charged(lua_State *L) {
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &charged_key) == LUA_TTABLE) return;
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &charged_key);
}

/* Pushes the key of `kind`'s `name` in the table of charged names. */
static void push_key(lua_State *L, char kind, const char *name) {
    char head[2] = {kind, '\0'};
    lua_pushlstring(L, head, sizeof head);
    lua_pushstring(L, name);
    lua_concat(L, 2);
}

int sb_lua_charge_name(lua_State *L, char kind, const char *name, long long bytes) {
    lua_rawgetp(L, LUA_REGISTRYINDEX, &charge_key);
    int none = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (none) return 1; /* no host budget: nothing to remember either */
    if (!lua_checkstack(L, 5)) return 0;
    push_charged(L);
    push_key(L, kind, name); /* may raise: nothing charged yet */
    lua_Integer before = lua_rawget(L, -2) == LUA_TNUMBER ? lua_tointeger(L, -1) : 0;
    lua_pop(L, 1);
    push_key(L, kind, name);
    lua_pushinteger(L, before + bytes);
    lua_rawset(L, -3); /* may raise: nothing charged yet */
    lua_pop(L, 1);
    if (sb_lua_charge(L, bytes)) return 1;
    /* Refused: forget it again (the table has room for the name now). */
    push_charged(L);
    push_key(L, kind, name);
    if (before == 0) {
        lua_pushnil(L);
    } else {
        lua_pushinteger(L, before);
    }
    lua_rawset(L, -3);
    lua_pop(L, 1);
    return 0;
}

void sb_lua_uncharge_name(lua_State *L, char kind, const char *name) {
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &charged_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    push_key(L, kind, name);
    lua_Integer bytes = lua_rawget(L, -2) == LUA_TNUMBER ? lua_tointeger(L, -1) : 0;
    lua_pop(L, 1);
    if (bytes > 0) {
        push_key(L, kind, name);
        lua_pushnil(L);
        lua_rawset(L, -3);
        (void)sb_lua_charge(L, -(long long)bytes);
    }
    lua_pop(L, 1);
}

void sb_lua_charge_or_raise(lua_State *L, char kind, const char *name, long long bytes) {
    if (!sb_lua_charge_name(L, kind, name, bytes)) {
        luaL_error(L, "not enough memory: the Lua state's memory budget is spent");
    }
}

void sb_lua_recharge_or_raise(lua_State *L, char kind, const char *name, long long bytes) {
    sb_lua_uncharge_name(L, kind, name);
    sb_lua_charge_or_raise(L, kind, name, bytes);
}
