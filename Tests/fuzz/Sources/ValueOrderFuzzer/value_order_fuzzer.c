/*
 * Fuzzes the one value model: the input drives a nested C value whose dict
 * keys come in mixed normalization forms (e-acute, A-ring, Omega written
 * several ways, KELVIN SIGN against K) or are raw UTF-8 from the input, in
 * any order. It then goes every way a dict can travel:
 *
 *   C -> C (an echo target), C -> Swift -> C (a target with a contract,
 *   x: int = 1, whose check converts through Swift values), C -> Lua -> C (a
 *   Lua echo target), a prepared route to the Lua target, sb_json_encode ->
 *   sb_json_decode (the JSON reader is Swift), and C -> Lua -> Lua -> C (a
 *   Lua target that performs the C echo from Lua).
 *
 * Invariant: each comes back *identical* — the same keys, byte for byte, in
 * the same order, the same kinds and values (sb_value_equal ignores order, so this
 * compares in order itself); the contract's x comes last. ASan checks memory
 * and leaks; a Lua state and mediator are made and closed per input.
 */
#include <switchboard.h>
#include <switchboard_lua.h>

#include <lauxlib.h>
#include <lualib.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *pool[] = {
    "zeta", "alpha", "caf\xC3\xA9", "cafe\xCC\x81", "\xC3\x85", "A\xCC\x8A", "\xE2\x84\xAB", "\xCE\xA9",
    "\xE2\x84\xA6", "K", "\xE2\x84\xAA", "", " ", "\xEF\xAC\x81", "fi", "n", "\xF0\x9F\x98\x80",
};

typedef struct {
    const unsigned char *data;
    size_t size, pos;
} input;

static unsigned next(input *in) { return in->pos < in->size ? in->data[in->pos++] : 0; }

static sb_value *build(input *in, int depth);

static sb_value *build_dict(input *in, int depth) {
    sb_value *d = sb_dict_new();
    unsigned n = next(in) % 7;
    for (unsigned i = 0; i < n; i++) {
        char key[16];
        unsigned k = next(in);
        if (k % 4 == 0) { /* raw bytes from the input: refused unless UTF-8 */
            size_t len = next(in) % 8, j;
            for (j = 0; j < len; j++) key[j] = (char)(next(in) | 1); /* no NUL */
            key[len] = '\0';
        } else {
            snprintf(key, sizeof key, "%s", pool[k % (sizeof pool / sizeof *pool)]);
        }
        if (strcmp(key, "x") == 0 || strcmp(key, "switchboard.module") == 0) continue;
        sb_value *v = build(in, depth + 1);
        if (sb_dict_set_new(d, key, v) != SB_OK && sb_dict_get(d, key) != NULL) abort();
    }
    return d;
}

static sb_value *build(input *in, int depth) {
    unsigned k = next(in) % (depth > 4 ? 6 : 8);
    switch (k) {
    case 0: return sb_null();
    case 1: return sb_bool((int)(next(in) & 1));
    case 2: return sb_int(((int64_t)next(in) - 128) << (next(in) % 63));
    case 3: {
        static const double specials[] = {0.5, -0.0, 1e300, -2.5e-310, 3.0, 1.0 / 3.0};
        return sb_double(specials[next(in) % 6]);
    }
    case 4: return sb_string(pool[next(in) % (sizeof pool / sizeof *pool)]);
    case 5: { /* not UTF-8, so Lua gives it back as bytes */
        unsigned char b[4] = {0xFF, (unsigned char)next(in), (unsigned char)next(in), 0};
        return sb_bytes(b, 1 + next(in) % 3); /* never empty: "" is UTF-8 */
    }
    case 6: {
        sb_value *a = sb_array_new();
        unsigned n = next(in) % 4;
        for (unsigned i = 0; i < n; i++) sb_array_append_new(a, build(in, depth + 1));
        return a;
    }
    default: return build_dict(in, depth);
    }
}

/* Same kinds, same values, dict keys byte for byte in the same order. */
static int identical(const sb_value *a, const sb_value *b) {
    sb_type t = sb_value_type(a);
    if (t != sb_value_type(b)) return 0;
    switch (t) {
    case SB_DOUBLE: {
        double x, y;
        sb_value_get_double(a, &x);
        sb_value_get_double(b, &y);
        return memcmp(&x, &y, sizeof x) == 0;
    }
    case SB_ARRAY:
        if (sb_value_count(a) != sb_value_count(b)) return 0;
        for (size_t i = 0; i < sb_value_count(a); i++) {
            if (!identical(sb_array_get(a, i), sb_array_get(b, i))) return 0;
        }
        return 1;
    case SB_DICT:
        if (sb_value_count(a) != sb_value_count(b)) return 0;
        for (size_t i = 0; i < sb_value_count(a); i++) {
            const char *ka, *kb;
            sb_value *va, *vb;
            sb_dict_at(a, i, &ka, &va);
            sb_dict_at(b, i, &kb, &vb);
            if (strcmp(ka, kb) != 0 || !identical(va, vb)) return 0;
        }
        return 1;
    default:
        return sb_value_equal(a, b);
    }
}

static void expect(int ok, const char *path, const sb_value *given, const sb_value *got) {
    if (ok) return;
    char *a = sb_json_encode(given), *b = got ? sb_json_encode(got) : NULL;
    fprintf(stderr, "invariant failed: %s\n  given %s\n  got   %s\n  (%s)\n", path, a, b ? b : "(none)", sb_error_message());
    abort();
}

static sb_status echo(void *u, const sb_value *args, sb_value **out) {
    (void)u;
    *out = sb_value_retain((sb_value *)args);
    return SB_OK;
}

static void through(sb_mediator *m, const char *target, const sb_value *params, const sb_value *expected) {
    sb_value *out = NULL;
    expect(sb_action_perform(m, target, "back", params, 0, &out) == SB_OK, target, params, NULL);
    expect(identical(out, expected), target, expected, out);
    sb_value_release(out);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    input in = {data, size, 0};
    sb_value *params = build_dict(&in, 0);

    sb_mediator *m = sb_mediator_new();
    if (m == NULL || sb_action_register(m, "CEcho", "back", echo, NULL, NULL) != SB_OK ||
        sb_action_register_contract(m, "CTyped", "back", "x: int = 1", echo, NULL, NULL) != SB_OK) abort();
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    sb_lua_open(L, m);
    lua_setglobal(L, "sb");
    if (luaL_dostring(L, "sb.target('LuaEcho', { back = function(p) return p end })\n"
                         "sb.target('LuaRelay', { back = function(p) return assert(sb.perform('CEcho', 'back', p)) end })")
        != LUA_OK) abort();

    through(m, "CEcho", params, params);
    through(m, "LuaEcho", params, params);
    through(m, "LuaRelay", params, params);

    sb_value *typed = sb_dict_new(); /* params, then x = 1 */
    for (size_t i = 0; i < sb_value_count(params); i++) {
        const char *k;
        sb_value *v;
        sb_dict_at(params, i, &k, &v);
        sb_dict_set(typed, k, v);
    }
    sb_dict_set_new(typed, "x", sb_int(1));
    through(m, "CTyped", params, typed);
    sb_value_release(typed);

    sb_route *route = NULL;
    sb_value *out = NULL;
    expect(sb_route_prepare(m, "LuaEcho", "back", 0, &route) == SB_OK, "route", params, NULL);
    expect(sb_route_call(route, params, &out) == SB_OK && identical(out, params), "route", params, out);
    sb_value_release(out);
    sb_route_free(route);

    char *json = sb_json_encode(params);
    sb_value *back = NULL;
    expect(json != NULL && sb_json_decode(json, &back) == SB_OK && identical(back, params), "JSON", params, back);
    sb_memory_free(json);
    sb_value_release(back);

    lua_close(L);
    sb_mediator_free(m);
    sb_value_release(params);
    return 0;
}
