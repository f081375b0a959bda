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
    CHECK(sb_typeof(a) == SB_ARRAY && sb_count(a) == 0);
    sb_value *one = sb_int(1);
    CHECK_STATUS(sb_array_append(a, one), SB_OK); /* retains */
    sb_release(one);
    CHECK_STATUS(sb_array_append_new(a, sb_int(2)), SB_OK); /* steals */
    CHECK(sb_count(a) == 2);
    CHECK(check_int(sb_array_get(a, 0)) == 1);
    CHECK(check_int(sb_array_get(a, 1)) == 2);
    CHECK(sb_array_get(a, 2) == NULL);
    CHECK(sb_array_get(a, (size_t)-1) == NULL);
    for (int i = 0; i < 1000; i++) sb_array_append_new(a, sb_int(i));
    CHECK(sb_count(a) == 1002 && check_int(sb_array_get(a, 1001)) == 999);
    sb_release(a);

    /* sb_array_append_new steals even on failure; sb_array_append does not. */
    destroyed = 0;
    sb_value *not_array = sb_dict_new();
    CHECK_STATUS(sb_array_append_new(not_array, sb_pointer(NULL, count_destroy)), SB_ETYPE);
    CHECK(destroyed == 1);
    sb_value *p = sb_pointer(NULL, count_destroy);
    CHECK_STATUS(sb_array_append(not_array, p), SB_ETYPE);
    CHECK(destroyed == 1);
    sb_release(p);
    CHECK(destroyed == 2);
    CHECK_STATUS(sb_array_append_new(NULL, sb_pointer(NULL, count_destroy)), SB_EINVAL);
    CHECK(destroyed == 3);
    sb_release(not_array);
}

static void test_dicts(void) {
    destroyed = 0;
    sb_value *d = sb_dict_new();
    CHECK_STATUS(sb_dict_set_new(d, "b", sb_int(2)), SB_OK);
    CHECK_STATUS(sb_dict_set_new(d, "a", sb_int(1)), SB_OK);
    CHECK_STATUS(sb_dict_set_new(d, "c", sb_pointer(NULL, count_destroy)), SB_OK);
    CHECK(sb_count(d) == 3);
    CHECK(check_int(sb_dict_get(d, "a")) == 1);
    CHECK(sb_dict_get(d, "zz") == NULL);
    CHECK(sb_dict_get(d, "") == NULL);

    /* Replacing keeps the position and releases the old value. */
    CHECK_STATUS(sb_dict_set_new(d, "c", sb_int(3)), SB_OK);
    CHECK(destroyed == 1);
    CHECK(sb_count(d) == 3);

    const char *key = NULL;
    sb_value *value = NULL;
    const char *order[] = {"b", "a", "c"};
    for (size_t i = 0; i < sb_count(d); i++) {
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
    sb_release(a);
    sb_release(d);

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
    CHECK(sb_count(d) == 2000 && sb_dict_get(d, "key2000") == NULL);
    sb_dict_set_new(d, "key7", sb_int(-7));
    CHECK(sb_count(d) == 2000 && check_int(sb_dict_get(d, "key7")) == -7);
    sb_release(d);
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
        sb_release(d);
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
    if (sb_typeof(d) != SB_DICT || sb_count(d) != 4) return 0;
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
    char *json = sb_to_json(d);
    CHECK_STR(json, "{\"zeta\":1,\"alpha\":2,\"" CAFE_COMPOSED "\":3,\"" CAFE_DECOMPOSED "\":4}");
    sb_value *back = NULL;
    CHECK_STATUS(sb_from_json(json, &back), SB_OK);
    CHECK(is_four_keys(back));
    CHECK(sb_equal(d, back));
    sb_free(json);
    sb_release(back);
    /* JSON escapes name the same bytes. */
    CHECK_STATUS(sb_from_json("{\"zeta\":1,\"alpha\":2,\"caf\\u00e9\":3,\"cafe\\u0301\":4}", &back), SB_OK);
    CHECK(is_four_keys(back));
    sb_release(back);
    CHECK_STATUS(sb_from_json("{\"caf\\u00e9\":1,\"" CAFE_COMPOSED "\":2}", &back), SB_EINVAL);
    CHECK(ERROR_MENTIONS("appears twice"));

    /* Equality: keys by bytes, in any order. */
    sb_value *reordered = sb_dict_new();
    sb_dict_set_new(reordered, CAFE_DECOMPOSED, sb_int(4));
    sb_dict_set_new(reordered, CAFE_COMPOSED, sb_int(3));
    sb_dict_set_new(reordered, "alpha", sb_int(2));
    sb_dict_set_new(reordered, "zeta", sb_int(1));
    CHECK(sb_equal(d, reordered));
    sb_dict_set_new(reordered, CAFE_DECOMPOSED, sb_int(3));
    CHECK(!sb_equal(d, reordered));
    sb_release(reordered);
    sb_value *one = sb_string(CAFE_COMPOSED), *other = sb_string(CAFE_DECOMPOSED);
    CHECK(!sb_equal(one, other));
    sb_release(one);
    sb_release(other);
    sb_release(d);
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
    sb_release(a);
    sb_release(b);
    sb_release(d);

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
        if (refused) sb_release(outer);
    }
    CHECK(refused && depth == SB_MAX_DEPTH);
    CHECK(ERROR_MENTIONS("SB_MAX_DEPTH"));
    sb_release(chain);
}

static void test_neutral_values(void) {
    sb_value *i = sb_int(1);
    CHECK(sb_count(i) == 0 && sb_count(NULL) == 0);
    CHECK(sb_array_get(i, 0) == NULL && sb_array_get(NULL, 0) == NULL);
    CHECK(sb_dict_get(NULL, "k") == NULL);
    sb_release(i);
}

int main(void) {
    test_arrays();
    test_dicts();
    test_similar_keys();
    test_key_bytes();
    test_nesting();
    test_neutral_values();
    return check_report("containers");
}
