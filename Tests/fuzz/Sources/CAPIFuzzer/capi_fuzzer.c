/*
 * Fuzzes sequences of C API calls. Each input is a program: every byte picks
 * an operation, the bytes after it its operands, over 8 value slots, a fresh
 * mediator with 3 target names × 4 action names, and 2 route slots. Wrong kinds, NULLs,
 * self-insertion, invalid UTF-8, unknown flags and names are all reachable.
 *
 * Invariants, checked after every operation (abort() on failure, which
 * libFuzzer reports as a crash):
 *   - every status is one the header documents;
 *   - an echo action returns a value equal to its params;
 *   - sb_json_encode(sb_json_decode(sb_json_encode(v))) equals sb_json_encode(v) for values
 *     without callbacks or pointers;
 *   - every userdata and callback destructor runs exactly once by the end;
 * and ASan (leaks included) checks the memory.
 */
#include <switchboard.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 8
#define ROUTES 2

static const char *const targets[] = {"T0", "T1", "NoTargetAction"};
static const char *const actions[] = {"echo", "fail", "notFound", "response"};

/* Userdata handed to the library; `live` counts those not yet destroyed. */
static int live;
static void destroy(void *p) {
    live--;
    free(p);
}
static void *tracked(void) {
    live++;
    return malloc(1);
}

#define REQUIRE(cond)                                                          \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "invariant failed: %s (line %d; last error: %s)\n", \
                    #cond, __LINE__, sb_error_message());                         \
            abort();                                                           \
        }                                                                      \
    } while (0)

static int documented(sb_status s) { return (s >= SB_OK && s <= SB_EQUEUED) || s == SB_ENOTFOUND; }

static sb_status echo(void *u, const sb_value *args, sb_value **out) {
    (void)u;
    *out = sb_value_retain((sb_value *)args);
    return SB_OK;
}
static sb_status fail(void *u, const sb_value *args, sb_value **out) {
    (void)u, (void)args;
    *out = sb_int(1); /* released by the library: a failure has no result */
    sb_error_set("failed on purpose");
    return (sb_status)77; /* an undocumented number becomes SB_EACTION */
}

/* Reads the input as operations and operands. */
typedef struct {
    const uint8_t *p, *end;
} reader;
static uint8_t next(reader *r) { return r->p < r->end ? *r->p++ : 0; }
static size_t take(reader *r, size_t max, const uint8_t **bytes) {
    size_t n = next(r) % (max + 1);
    if (n > (size_t)(r->end - r->p)) n = (size_t)(r->end - r->p);
    *bytes = r->p;
    r->p += n;
    return n;
}

/* A NUL-terminated copy of up to 24 input bytes (any bytes, UTF-8 or not). */
static void text(reader *r, char out[32]) {
    const uint8_t *b;
    size_t n = take(r, 24, &b);
    memcpy(out, b, n);
    out[n] = 0;
}

/* Whether `v` has at most `budget` nodes, counting a shared subvalue each
 * time it appears: appending one value repeatedly makes a structure whose
 * walk (JSON, equality, conversion) doubles with each level. Inputs beyond
 * the budget skip the walking checks. */
static int small(const sb_value *v, long *budget) {
    if (--*budget < 0) return 0;
    sb_type t = sb_value_type(v);
    for (size_t i = 0; (t == SB_ARRAY || t == SB_DICT) && i < sb_value_count(v); i++) {
        sb_value *item = NULL;
        if (t == SB_ARRAY) item = sb_array_get(v, i);
        else sb_dict_at(v, i, NULL, &item);
        if (!small(item, budget)) return 0;
    }
    return 1;
}

static int walkable(const sb_value *v) {
    long budget = 4096;
    return small(v, &budget);
}

static int has_opaque(const sb_value *v) {
    sb_type t = sb_value_type(v);
    if (t == SB_CALLBACK || t == SB_POINTER) return 1;
    for (size_t i = 0; i < sb_value_count(v); i++) {
        sb_value *item = NULL;
        if (t == SB_ARRAY) item = sb_array_get(v, i);
        else sb_dict_at(v, i, NULL, &item);
        if (has_opaque(item)) return 1;
    }
    return 0;
}

/* Equal, as far as JSON shows (NaN is unequal to itself for sb_value_equal);
 * values holding callbacks or pointers by kind and size only. */
static int same(const sb_value *x, const sb_value *y) {
    if (has_opaque(y)) return sb_value_type(x) == sb_value_type(y) && sb_value_count(x) == sb_value_count(y);
    char *a = sb_json_encode(x), *b = sb_json_encode(y);
    int equal = a != NULL && b != NULL && strcmp(a, b) == 0;
    sb_memory_free(a);
    sb_memory_free(b);
    return equal;
}

static void check_json(const sb_value *v) {
    if (v == NULL || !walkable(v) || has_opaque(v)) return;
    char *json = sb_json_encode(v);
    REQUIRE(json != NULL);
    sb_value *back = NULL;
    REQUIRE(sb_json_decode(json, &back) == SB_OK);
    char *again = sb_json_encode(back);
    REQUIRE(again != NULL && strcmp(json, again) == 0);
    sb_memory_free(again);
    sb_memory_free(json);
    sb_value_release(back);
}

static sb_value *scalar(reader *r) {
    const uint8_t *b;
    size_t n;
    double d;
    int64_t i;
    switch (next(r) % 7) {
    case 0: return sb_null();
    case 1: return sb_bool(next(r));
    case 2:
        n = take(r, 8, &b);
        i = 0;
        memcpy(&i, b, n);
        return sb_int(i);
    case 3:
        n = take(r, 8, &b);
        d = 0;
        memcpy(&d, b, n);
        return sb_double(d); /* NaN and infinities included */
    case 4: n = take(r, 64, &b); return sb_string_n((const char *)b, n); /* NULL if not UTF-8 */
    case 5: n = take(r, 64, &b); return sb_bytes(b, n);
    default: return sb_callback_new(echo, tracked(), destroy);
    }
}

static void set(sb_value **slot, sb_value *v) {
    sb_value_release(*slot);
    *slot = v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, data + size};
    sb_value *v[SLOTS] = {0};
    sb_route *routes[ROUTES] = {0};
    sb_mediator *m = sb_mediator_new();
    REQUIRE(m != NULL);
    char key[32];
    int steps = 0;

    while (r.p < r.end && steps++ < 256) {
        uint8_t op = next(&r);
        sb_value **a = &v[next(&r) % SLOTS];
        sb_value *b = v[next(&r) % SLOTS];
        const char *target = targets[next(&r) % 3];
        const char *action = actions[next(&r) % 4];
        sb_value *out = NULL;
        sb_status s = SB_OK;
        switch (op % 16) {
        case 0: set(a, scalar(&r)); break;
        case 1: set(a, sb_array_new()); break;
        case 2: set(a, sb_dict_new()); break;
        case 3: s = sb_array_append(*a, b); break;
        case 4:
            text(&r, key);
            s = sb_dict_set(*a, key, b);
            break;
        case 5: { /* getters of every kind on whatever is there */
            int64_t i;
            double d;
            int flag;
            void *p;
            size_t len;
            REQUIRE(documented(sb_value_get_int(*a, &i)) && documented(sb_value_get_double(*a, &d)));
            REQUIRE(documented(sb_value_get_bool(*a, &flag)) && documented(sb_value_get_pointer(*a, &p)));
            (void)sb_value_get_string(*a, &len);
            (void)sb_value_get_bytes(*a, &len);
            text(&r, key);
            (void)sb_dict_get(*a, key);
            (void)sb_array_get(*a, next(&r));
            s = sb_dict_at(*a, next(&r), NULL, NULL);
            break;
        }
        case 6: set(a, NULL); break;
        case 7: set(a, sb_value_retain(b)); break;
        case 8: check_json(*a); break;
        case 9: {
            sb_fn fn = strcmp(action, "fail") == 0 ? fail : echo;
            s = sb_action_register(m, target, action, fn, tracked(), destroy);
            break;
        }
        case 10:
            s = next(&r) & 1 ? sb_target_unregister(m, target) : sb_action_unregister(m, target, action);
            break;
        case 11: {
            unsigned flags = next(&r) % 3; /* 2 is an unknown flag bit */
            s = sb_action_perform(m, target, action, *a, flags, &out);
            /* With no fallback or notFound involved, echo answers with its params. */
            if (s == SB_OK && strcmp(action, "echo") == 0 && *a != NULL && strcmp(target, "NoTargetAction") != 0 &&
                sb_dict_get(out, "targetString") == NULL && walkable(*a))
                REQUIRE(same(out, *a));
            break;
        }
        case 12: s = sb_target_evict(m, target); break;
        case 13: {
            sb_route **route = &routes[next(&r) % ROUTES];
            if (*route == NULL) {
                s = sb_route_prepare(m, target, action, 0, route);
                REQUIRE((s == SB_OK) == (*route != NULL));
            } else if (next(&r) & 1) {
                s = sb_route_call(*route, *a, &out);
            } else {
                sb_route_free(*route);
                *route = NULL;
            }
            break;
        }
        case 14: {
            char url[64];
            text(&r, key);
            snprintf(url, sizeof url, "app://%s/%s?%s", target, action, key);
            s = sb_url_open(m, url, &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .params = walkable(*a) ? *a : NULL}, &out);
            break;
        }
        default: s = sb_callback_call(*a, b, &out); break;
        }
        REQUIRE(documented(s));
        REQUIRE(s == SB_OK || out == NULL);
        sb_value_release(out);
    }

    for (int i = 0; i < ROUTES; i++) sb_route_free(routes[i]);
    for (int i = 0; i < SLOTS; i++) sb_value_release(v[i]);
    sb_mediator_free(m);
    REQUIRE(live == 0); /* every destructor ran, exactly once */
    return 0;
}
