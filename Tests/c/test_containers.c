/* Arrays and dicts: ownership (retain vs steal), order, lookups, nesting rules. */
#include "check.h"

#include <stdint.h>
#include <stdlib.h>

static int destroyed;
static void count_destroy(void *p) {
    (void)p;
    destroyed++;
}

static void test_arrays(void) {
    sb_value *a = sb_array_new();
    CHECK(sb_value_type(a) == SB_ARRAY && sb_value_count(a) == 0);
    sb_value *one = sb_int(1);
    CHECK_STATUS(sb_array_append(a, one), SB_OK); /* retains */
    sb_value_release(one);
    CHECK_STATUS(sb_array_append_new(a, sb_int(2)), SB_OK); /* steals */
    CHECK(sb_value_count(a) == 2);
    CHECK(check_int(sb_array_get(a, 0)) == 1);
    CHECK(check_int(sb_array_get(a, 1)) == 2);
    CHECK(sb_array_get(a, 2) == NULL);
    CHECK(sb_array_get(a, (size_t)-1) == NULL);
    for (int i = 0; i < 1000; i++) sb_array_append_new(a, sb_int(i));
    CHECK(sb_value_count(a) == 1002 && check_int(sb_array_get(a, 1001)) == 999);
    sb_value_release(a);

    /* sb_array_append_new steals even on failure; sb_array_append does not. */
    destroyed = 0;
    sb_value *not_array = sb_dict_new();
    CHECK_STATUS(sb_array_append_new(not_array, sb_pointer(NULL, count_destroy)), SB_ETYPE);
    CHECK(destroyed == 1);
    sb_value *p = sb_pointer(NULL, count_destroy);
    CHECK_STATUS(sb_array_append(not_array, p), SB_ETYPE);
    CHECK(destroyed == 1);
    sb_value_release(p);
    CHECK(destroyed == 2);
    CHECK_STATUS(sb_array_append_new(NULL, sb_pointer(NULL, count_destroy)), SB_EINVAL);
    CHECK(destroyed == 3);
    sb_value_release(not_array);
}

static void test_dicts(void) {
    destroyed = 0;
    sb_value *d = sb_dict_new();
    CHECK_STATUS(sb_dict_set_new(d, "b", sb_int(2)), SB_OK);
    CHECK_STATUS(sb_dict_set_new(d, "a", sb_int(1)), SB_OK);
    CHECK_STATUS(sb_dict_set_new(d, "c", sb_pointer(NULL, count_destroy)), SB_OK);
    CHECK(sb_value_count(d) == 3);
    CHECK(check_int(sb_dict_get(d, "a")) == 1);
    CHECK(sb_dict_get(d, "zz") == NULL);
    CHECK(sb_dict_get(d, "") == NULL);

    /* Replacing keeps the position and releases the old value. */
    CHECK_STATUS(sb_dict_set_new(d, "c", sb_int(3)), SB_OK);
    CHECK(destroyed == 1);
    CHECK(sb_value_count(d) == 3);

    const char *key = NULL;
    sb_value *value = NULL;
    const char *order[] = {"b", "a", "c"};
    for (size_t i = 0; i < sb_value_count(d); i++) {
        CHECK_STATUS(sb_dict_at(d, i, &key, &value), SB_OK);
        CHECK_STR(key, order[i]);
        CHECK(check_int(value) == (int64_t)(key[0] - 'a' + 1));
    }
    CHECK_STATUS(sb_dict_at(d, 0, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_dict_at(d, 3, &key, &value), SB_EINVAL);
    CHECK(key == NULL && value == NULL);

    /* Steals on every failure: a bad key, a NULL key, not a dict. */
    CHECK_STATUS(sb_dict_set_new(d, "\xff", sb_pointer(NULL, count_destroy)), SB_EINVAL);
    CHECK(destroyed == 2);
    CHECK_STATUS(sb_dict_set_new(d, NULL, sb_pointer(NULL, count_destroy)), SB_EINVAL);
    CHECK(destroyed == 3);
    sb_value *a = sb_array_new();
    CHECK_STATUS(sb_dict_set_new(a, "k", sb_pointer(NULL, count_destroy)), SB_ETYPE);
    CHECK(destroyed == 4);
    CHECK_STATUS(sb_dict_set(a, "k", d), SB_ETYPE);
    CHECK_STATUS(sb_dict_at(a, 0, &key, &value), SB_ETYPE);
    CHECK(sb_dict_get(a, "k") == NULL);
    sb_value_release(a);
    sb_value_release(d);

    /* Large dicts use an index: every key stays reachable. */
    d = sb_dict_new();
    char name[32];
    for (int i = 0; i < 2000; i++) {
        snprintf(name, sizeof name, "key%d", i);
        sb_dict_set_new(d, name, sb_int(i));
    }
    for (int i = 0; i < 2000; i++) {
        snprintf(name, sizeof name, "key%d", i);
        if (check_int(sb_dict_get(d, name)) != i) CHECK(!"large dict lookup");
    }
    CHECK(sb_value_count(d) == 2000 && sb_dict_get(d, "key2000") == NULL);
    sb_dict_set_new(d, "key7", sb_int(-7));
    CHECK(sb_value_count(d) == 2000 && check_int(sb_dict_get(d, "key7")) == -7);
    sb_value_release(d);
}

/* Keys that are prefixes of each other, or differ in the last byte, long
 * keys (stored out of line) and short ones: each finds only itself, in small
 * dicts (scanned) and in dicts past the index threshold. */
static void test_similar_keys(void) {
    static const char *keys[] = {"a", "ab", "abc", "abd", "abcdefghijklmnopqrstuvw", "abcdefghijklmnopqrstuvwx",
                                 "abcdefghijklmnopqrstuvwy", "b", "key", "key1", "key10", "key2"};
    const size_t nkeys = sizeof keys / sizeof *keys;
    for (size_t size = 1; size <= nkeys; size++) {
        sb_value *d = sb_dict_new();
        for (size_t i = 0; i < size; i++) sb_dict_set_new(d, keys[i], sb_int((int64_t)i));
        int wrong = 0;
        for (size_t i = 0; i < nkeys; i++) {
            const sb_value *v = sb_dict_get(d, keys[i]);
            if (i < size ? check_int(v) != (int64_t)i : v != NULL) wrong++;
        }
        const char *misses[] = {"", "abcd", "abcdefghijklmnopqrstuv", "abcdefghijklmnopqrstuvwxy", "c", "ke", "key3"};
        for (size_t i = 0; i < sizeof misses / sizeof *misses; i++) {
            if (sb_dict_get(d, misses[i]) != NULL) wrong++;
        }
        if (wrong) fprintf(stderr, "  dict of %zu keys: %d wrong lookups\n", size, wrong);
        CHECK(wrong == 0);
        sb_value_release(d);
    }
}

/* Keys are bytes: two spellings of e-acute (U+00E9, and e + U+0301) are two
 * keys, kept in order by every path that goes through Swift: JSON out and
 * back in, and equality. */
#define CAFE_COMPOSED "caf\xC3\xA9"
#define CAFE_DECOMPOSED "cafe\xCC\x81"

static sb_value *four_keys(void) {
    sb_value *d = sb_dict_new();
    sb_dict_set_new(d, "zeta", sb_int(1));
    sb_dict_set_new(d, "alpha", sb_int(2));
    sb_dict_set_new(d, CAFE_COMPOSED, sb_int(3));
    sb_dict_set_new(d, CAFE_DECOMPOSED, sb_int(4));
    return d;
}

/* Whether `d` holds exactly zeta, alpha, the two spellings, in that order,
 * with the values four_keys() gave them. */
static int is_four_keys(const sb_value *d) {
    static const char *order[] = {"zeta", "alpha", CAFE_COMPOSED, CAFE_DECOMPOSED};
    if (sb_value_type(d) != SB_DICT || sb_value_count(d) != 4) return 0;
    for (size_t i = 0; i < 4; i++) {
        const char *key = NULL;
        sb_value *value = NULL;
        if (sb_dict_at(d, i, &key, &value) != SB_OK || strcmp(key, order[i]) != 0) return 0;
        if (check_int(value) != (int64_t)i + 1) return 0;
    }
    return 1;
}

static void test_key_bytes(void) {
    sb_value *d = four_keys();
    CHECK(is_four_keys(d));
    CHECK(check_int(sb_dict_get(d, CAFE_DECOMPOSED)) == 4);

    /* JSON keeps both keys, in order, and reads back to an equal dict. */
    char *json = sb_json_encode(d);
    CHECK_STR(json, "{\"zeta\":1,\"alpha\":2,\"" CAFE_COMPOSED "\":3,\"" CAFE_DECOMPOSED "\":4}");
    sb_value *back = NULL;
    CHECK_STATUS(sb_json_decode(json, &back), SB_OK);
    CHECK(is_four_keys(back));
    CHECK(sb_value_equal(d, back));
    sb_memory_free(json);
    sb_value_release(back);
    /* JSON escapes name the same bytes. */
    CHECK_STATUS(sb_json_decode("{\"zeta\":1,\"alpha\":2,\"caf\\u00e9\":3,\"cafe\\u0301\":4}", &back), SB_OK);
    CHECK(is_four_keys(back));
    sb_value_release(back);
    CHECK_STATUS(sb_json_decode("{\"caf\\u00e9\":1,\"" CAFE_COMPOSED "\":2}", &back), SB_EINVAL);
    CHECK(ERROR_MENTIONS("appears twice"));

    /* Equality: keys by bytes, in any order. */
    sb_value *reordered = sb_dict_new();
    sb_dict_set_new(reordered, CAFE_DECOMPOSED, sb_int(4));
    sb_dict_set_new(reordered, CAFE_COMPOSED, sb_int(3));
    sb_dict_set_new(reordered, "alpha", sb_int(2));
    sb_dict_set_new(reordered, "zeta", sb_int(1));
    CHECK(sb_value_equal(d, reordered));
    sb_dict_set_new(reordered, CAFE_DECOMPOSED, sb_int(3));
    CHECK(!sb_value_equal(d, reordered));
    sb_value_release(reordered);
    sb_value *one = sb_string(CAFE_COMPOSED), *other = sb_string(CAFE_DECOMPOSED);
    CHECK(!sb_value_equal(one, other));
    sb_value_release(one);
    sb_value_release(other);
    sb_value_release(d);
}

static void test_nesting(void) {
    sb_value *a = sb_array_new(), *b = sb_array_new(), *d = sb_dict_new();
    CHECK_STATUS(sb_array_append(a, a), SB_EINVAL); /* itself */
    CHECK(ERROR_MENTIONS("itself"));
    CHECK_STATUS(sb_array_append(a, b), SB_OK);
    CHECK_STATUS(sb_dict_set(d, "a", a), SB_OK);
    CHECK_STATUS(sb_array_append(b, d), SB_EINVAL); /* d holds a, which holds b */
    CHECK(ERROR_MENTIONS("cycle"));
    CHECK_STATUS(sb_dict_set(d, "self", d), SB_EINVAL);
    sb_value_release(a);
    sb_value_release(b);
    sb_value_release(d);

    /* SB_MAX_DEPTH levels of nesting are fine; one more is refused. */
    sb_value *chain = sb_array_new();
    int depth = 1;
    int refused = 0;
    while (!refused && depth <= SB_MAX_DEPTH + 1) {
        sb_value *outer = sb_array_new();
        if (sb_array_append_new(outer, chain) != SB_OK) {
            refused = 1;
            chain = NULL;
        } else {
            chain = outer;
            depth++;
        }
        if (refused) sb_value_release(outer);
    }
    CHECK(refused && depth == SB_MAX_DEPTH);
    CHECK(ERROR_MENTIONS("SB_MAX_DEPTH"));
    sb_value_release(chain);
}

/* A chain of `levels` containers (arrays, or dicts holding each other under
 * "k"): a new reference to the outermost; *innermost borrows the last. */
static sb_value *chain(int levels, int dicts, sb_value **innermost) {
    sb_value *root = dicts ? sb_dict_new() : sb_array_new(), *at = root;
    for (int i = 1; i < levels; i++) {
        sb_value *next = dicts ? sb_dict_new() : sb_array_new();
        sb_status s = dicts ? sb_dict_set_new(at, "k", next) : sb_array_append_new(at, next);
        if (s != SB_OK) {
            sb_value_release(root);
            return NULL;
        }
        at = next;
    }
    if (innermost) *innermost = at;
    return root;
}

static sb_status put(sb_value *container, sb_value *item) {
    return sb_value_type(container) == SB_DICT ? sb_dict_set(container, "k", item) : sb_array_append(container, item);
}

#define REFUSED_TOO_DEEP(expr)                                                          \
    do {                                                                                \
        CHECK_STATUS((expr), SB_EINVAL);                                                \
        CHECK(ERROR_MENTIONS("SB_MAX_DEPTH (200)"));                                    \
    } while (0)

static int depth_cases;

/* SB_MAX_DEPTH holds for the whole value, however it is built: a chain put
 * into the innermost container of another chain counts in full (before, only
 * the levels below the inserted value were counted, and any depth could be
 * built this way; releasing or comparing ~100,000 levels overflowed the
 * stack). */
static void test_depth_of_whole_value(void) {
    for (int dicts = 0; dicts <= 1; dicts++) {
        /* Downward: a chain into the innermost container of a chain. 100 +
         * 100 levels are fine; one more below, or above, is refused. */
        sb_value *top_inner, *low_inner;
        sb_value *top = chain(100, dicts, &top_inner), *low = chain(100, dicts, &low_inner);
        CHECK_STATUS(put(top_inner, low), SB_OK);
        sb_value *one = dicts ? sb_dict_new() : sb_array_new();
        REFUSED_TOO_DEEP(put(low_inner, one));
        CHECK(ERROR_MENTIONS("already 200 levels deep"));
        CHECK(sb_value_count(low_inner) == 0);
        /* Upward: the 200 levels wrapped in one more container. */
        REFUSED_TOO_DEEP(put(one, top));
        CHECK(sb_value_count(one) == 0);
        depth_cases += 3;

        /* The other order: the lower chain first gets its own parent, then
         * goes below the other chain's innermost container. */
        sb_value *top2_inner, *low2_inner;
        sb_value *top2 = chain(100, dicts, &top2_inner), *low2 = chain(101, dicts, &low2_inner);
        sb_value *holder = sb_array_new();
        CHECK_STATUS(sb_array_append(holder, low2), SB_OK); /* 102 levels */
        REFUSED_TOO_DEEP(put(top2_inner, low2));             /* would be 201 */
        CHECK(sb_value_count(top2_inner) == 0);
        depth_cases++;

        /* Exactly SB_MAX_DEPTH levels: compare, print, parse, release. */
        sb_value *copy = chain(200, dicts, NULL);
        CHECK(copy != NULL);
        CHECK(sb_value_equal(top, copy));
        char *json = sb_json_encode(top);
        CHECK(json != NULL && strlen(json) > 200);
        sb_value *parsed = NULL;
        CHECK_STATUS(sb_json_decode(json, &parsed), SB_OK);
        CHECK(sb_value_equal(parsed, copy));
        sb_memory_free(json);
        sb_value_release(parsed);
        sb_value_release(copy);

        sb_value_release(one);
        sb_value_release(top);
        sb_value_release(low);
        sb_value_release(holder);
        sb_value_release(top2);
        sb_value_release(low2);
    }

    /* The report's construction: chains of 100 appended, each to the
     * innermost container of the last, until one is refused. */
    sb_value *inner;
    sb_value *root = chain(100, 0, &inner);
    int levels = 100, refused = 0;
    while (!refused && levels < 1600) {
        sb_value *next_inner;
        sb_value *next = chain(100, 0, &next_inner);
        if (sb_array_append_new(inner, next) == SB_OK) {
            inner = next_inner;
            levels += 100;
        } else {
            refused = 1;
        }
    }
    CHECK(refused && levels == 200);
    CHECK(ERROR_MENTIONS("SB_MAX_DEPTH"));
    sb_value_release(root);
    depth_cases++;

    /* A shared container counts at its deepest place, and only while it is
     * there: S (50 levels) sits at depth 2 under `shallow` and at depth 151
     * under a chain of 150. */
    sb_value *s_inner, *deep_inner;
    sb_value *s = chain(50, 0, &s_inner);
    sb_value *shallow = sb_dict_new();
    sb_value *deep = chain(150, 1, &deep_inner);
    CHECK_STATUS(sb_dict_set(shallow, "s", s), SB_OK);
    CHECK_STATUS(sb_dict_set(deep_inner, "s", s), SB_OK); /* 150 + 50: exactly the limit */
    REFUSED_TOO_DEEP(sb_array_append_new(s_inner, sb_array_new()));
    /* Replacing the deep reference frees the place: now S is 51 levels deep
     * at most, and may grow. */
    CHECK_STATUS(sb_dict_set_new(deep_inner, "s", sb_int(1)), SB_OK);
    sb_value *s_bottom = sb_array_new();
    CHECK_STATUS(sb_array_append_new(s_inner, s_bottom), SB_OK); /* S: 51 levels */
    /* Back under the chain of 150 it would be 201 levels. */
    REFUSED_TOO_DEEP(sb_dict_set(deep_inner, "s", s));
    /* Releasing a parent frees the place too. */
    sb_value *wrapper = sb_array_new();
    CHECK_STATUS(sb_array_append(wrapper, deep), SB_OK); /* 151 levels */
    sb_value *deep_only_inner;
    sb_value *deep_only = chain(149, 0, &deep_only_inner);
    CHECK_STATUS(sb_array_append(deep_only_inner, s), SB_OK); /* 149 + 51 = 200 */
    REFUSED_TOO_DEEP(sb_array_append_new(s_bottom, sb_array_new()));
    sb_value_release(deep_only);
    CHECK_STATUS(sb_array_append_new(s_bottom, sb_array_new()), SB_OK); /* 53 levels now */
    /* A cycle through a shared container is still a cycle. */
    CHECK_STATUS(sb_array_append(s_inner, shallow), SB_EINVAL);
    CHECK(ERROR_MENTIONS("cycle"));
    depth_cases += 5;
    sb_value_release(wrapper);
    sb_value_release(deep);
    sb_value_release(shallow);
    sb_value_release(s);

    /* A value that shares its halves at every level has 2^60 paths; adding
     * it, or adding to it, costs per container, not per path (the former
     * check walked every path). */
    sb_value *dag = sb_array_new(), *bottom = dag;
    for (int i = 0; i < 60; i++) {
        sb_value *up = sb_array_new();
        CHECK_STATUS(sb_array_append(up, dag), SB_OK);
        CHECK_STATUS(sb_array_append_new(up, dag), SB_OK);
        dag = up;
    }
    sb_value *dag_holder = sb_dict_new();
    CHECK_STATUS(sb_dict_set(dag_holder, "dag", dag), SB_OK);
    CHECK_STATUS(sb_array_append_new(bottom, sb_array_new()), SB_OK); /* level 63 */
    CHECK_STATUS(sb_array_append(dag, dag_holder), SB_EINVAL);
    CHECK(ERROR_MENTIONS("cycle"));
    sb_value_release(dag_holder);
    sb_value_release(dag);
    depth_cases += 2;

    robustness_row("Nesting past SB_MAX_DEPTH built in any order: a chain into the innermost container of "
                   "another (arrays, dicts), 200 levels wrapped, chains of 100 joined until refused, a shared "
                   "container at two depths (kept, replaced, its parent released), a value with 2^60 paths",
                   depth_cases,
                   "SB_EINVAL \"SB_MAX_DEPTH\" at the 201st level; 200 levels compare, print, parse and release; "
                   "a shared container may grow again once its deep place is gone; the 2^60 paths are not walked");
}

static void test_neutral_values(void) {
    sb_value *i = sb_int(1);
    CHECK(sb_value_count(i) == 0 && sb_value_count(NULL) == 0);
    CHECK(sb_array_get(i, 0) == NULL && sb_array_get(NULL, 0) == NULL);
    CHECK(sb_dict_get(NULL, "k") == NULL);
    sb_value_release(i);
}

/* Messages name a kind with its article: "an int", "an array" (never "a int"). */
static void test_kind_articles(void) {
    sb_value *i = sb_int(1), *a = sb_array_new(), *s = sb_string("x");
    int64_t n = 0;
    int b = 0;
    CHECK_STATUS(sb_value_get_bool(i, &b), SB_ETYPE);
    CHECK(strstr(sb_error_message(), "the value is an int") != NULL);
    CHECK_STATUS(sb_value_get_int(a, &n), SB_ETYPE);
    CHECK(strstr(sb_error_message(), "the value is an array") != NULL);
    CHECK_STATUS(sb_value_get_int(s, &n), SB_ETYPE);
    CHECK(strstr(sb_error_message(), "the value is a string") != NULL);
    CHECK_STATUS(sb_array_append(i, s), SB_ETYPE);
    CHECK(strstr(sb_error_message(), "the container is an int") != NULL);
    sb_value_release(i);
    sb_value_release(a);
    sb_value_release(s);
}

int main(void) {
    test_kind_articles();
    test_arrays();
    test_dicts();
    test_similar_keys();
    test_key_bytes();
    test_nesting();
    test_depth_of_whole_value();
    test_neutral_values();
    return check_report("containers");
}
