/* Values: constructors, getters, reference counting, equality, JSON. */
#include "check.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static int destroyed;
static void *destroyed_with;
static void count_destroy(void *p) {
    destroyed++;
    destroyed_with = p;
}

static void test_version(void) {
    CHECK_STR(sb_version(), SB_VERSION_STRING);
    CHECK(sb_version_number() == SB_VERSION_NUMBER);
    CHECK(sb_abi_version() == SB_ABI_VERSION);
    CHECK(SB_VERSION_NUMBER == SB_VERSION_MAJOR * 10000 + SB_VERSION_MINOR * 100 + SB_VERSION_PATCH);
}

static void test_scalars(void) {
    sb_value *v = sb_null();
    CHECK(sb_value_type(v) == SB_NULL);
    sb_value_release(v);

    int b = -1;
    v = sb_bool(5);
    CHECK(sb_value_type(v) == SB_BOOL);
    CHECK_STATUS(sb_value_get_bool(v, &b), SB_OK);
    CHECK(b == 1);
    sb_value_release(v);
    v = sb_bool(0);
    CHECK_STATUS(sb_value_get_bool(v, &b), SB_OK);
    CHECK(b == 0);
    sb_value_release(v);

    int64_t i = 0;
    double d = 0;
    v = sb_int(INT64_MIN);
    CHECK_STATUS(sb_value_get_int(v, &i), SB_OK);
    CHECK(i == INT64_MIN);
    /* Strict getters: 3 is not 3.0. */
    CHECK_STATUS(sb_value_get_double(v, &d), SB_ETYPE);
    CHECK_STATUS(sb_value_get_bool(v, &b), SB_ETYPE);
    sb_value_release(v);

    v = sb_double(3.0);
    CHECK_STATUS(sb_value_get_double(v, &d), SB_OK);
    CHECK(d == 3.0);
    CHECK_STATUS(sb_value_get_int(v, &i), SB_ETYPE);
    CHECK(ERROR_MENTIONS("double"));
    sb_value_release(v);

    v = sb_double(NAN);
    CHECK_STATUS(sb_value_get_double(v, &d), SB_OK);
    CHECK(isnan(d));
    sb_value_release(v);
    v = sb_double(-INFINITY);
    CHECK_STATUS(sb_value_get_double(v, &d), SB_OK);
    CHECK(isinf(d) && d < 0);
    sb_value_release(v);
}

static void test_strings(void) {
    size_t len = 99;
    sb_value *v = sb_string("h\xc3\xa9llo");
    CHECK(sb_value_type(v) == SB_STRING);
    CHECK_STR(sb_value_get_string(v, &len), "h\xc3\xa9llo");
    CHECK(len == 6);
    CHECK(sb_value_get_string(v, NULL) != NULL);
    CHECK(sb_value_get_bytes(v, &len) == NULL); /* a string is not bytes */
    sb_value_release(v);

    /* Embedded NULs survive with sb_string_n. */
    v = sb_string_n("a\0b", 3);
    const char *s = sb_value_get_string(v, &len);
    CHECK(len == 3 && s != NULL && memcmp(s, "a\0b", 3) == 0 && s[3] == '\0');
    sb_value_release(v);

    v = sb_string_n(NULL, 0);
    CHECK(sb_value_get_string(v, &len) != NULL && len == 0);
    sb_value_release(v);

    /* Invalid UTF-8 is refused: that is what bytes are for. */
    CHECK(sb_string("\xff\xfe") == NULL);
    CHECK(ERROR_MENTIONS("UTF-8"));
    CHECK(sb_string_n("ok\xc3", 3) == NULL);
    CHECK(sb_string(NULL) == NULL);
    CHECK(ERROR_MENTIONS("NULL"));
    CHECK(sb_string_n(NULL, 4) == NULL);

    v = sb_bytes("\x00\xff", 2);
    const unsigned char *p = sb_value_get_bytes(v, &len);
    CHECK(sb_value_type(v) == SB_BYTES && len == 2 && p != NULL && p[0] == 0x00 && p[1] == 0xff);
    CHECK(sb_value_get_string(v, &len) == NULL); /* bytes are not a string */
    sb_value_release(v);

    v = sb_bytes(NULL, 0);
    CHECK(sb_value_get_bytes(v, &len) != NULL && len == 0);
    sb_value_release(v);
    CHECK(sb_bytes(NULL, 3) == NULL);
}

static void test_pointers_and_refcounts(void) {
    int host = 7;
    void *p = NULL;
    destroyed = 0;
    sb_value *v = sb_pointer(&host, count_destroy);
    CHECK(sb_value_type(v) == SB_POINTER);
    CHECK_STATUS(sb_value_get_pointer(v, &p), SB_OK);
    CHECK(p == &host);
    CHECK(sb_value_retain(v) == v);
    sb_value_release(v);
    CHECK(destroyed == 0);
    sb_value_release(v);
    CHECK(destroyed == 1 && destroyed_with == &host);

    v = sb_pointer(NULL, NULL);
    CHECK_STATUS(sb_value_get_pointer(v, &p), SB_OK);
    CHECK(p == NULL);
    sb_value_release(v);

    CHECK(sb_value_retain(NULL) == NULL);
    sb_value_release(NULL);
    CHECK(sb_value_type(NULL) == SB_NULL);
}

static void test_equal(void) {
    sb_value *a = sb_int(3), *b = sb_int(3), *c = sb_double(3.0), *n1 = sb_double(NAN);
    CHECK(sb_value_equal(a, b));
    CHECK(!sb_value_equal(a, c));
    CHECK(!sb_value_equal(n1, n1)); /* NaN is unequal even to itself */
    CHECK(sb_value_equal(NULL, NULL));
    CHECK(!sb_value_equal(a, NULL));

    sb_value *x = sb_dict_new(), *y = sb_dict_new();
    sb_dict_set_new(x, "k", sb_string("v"));
    sb_dict_set_new(x, "l", sb_array_new());
    sb_dict_set_new(y, "l", sb_array_new());
    sb_dict_set_new(y, "k", sb_string("v"));
    CHECK(sb_value_equal(x, y)); /* order of keys does not matter */
    sb_array_append_new(sb_dict_get(y, "l"), sb_null());
    CHECK(!sb_value_equal(x, y));

    /* Past the index threshold too, in either order, either way round. */
    sb_value *big1 = sb_dict_new(), *big2 = sb_dict_new();
    char name[16];
    for (int i = 0; i < 12; i++) {
        snprintf(name, sizeof name, "key%d", i);
        sb_dict_set_new(big1, name, sb_int(i));
        snprintf(name, sizeof name, "key%d", 11 - i);
        sb_dict_set_new(big2, name, sb_int(11 - i));
    }
    CHECK(sb_value_equal(big1, big2) && sb_value_equal(big2, big1));
    sb_dict_set_new(big2, "key5", sb_int(-5));
    CHECK(!sb_value_equal(big1, big2) && !sb_value_equal(big2, big1));
    sb_value_release(big1);
    sb_value_release(big2);

    sb_value *n2 = sb_double(NAN);
    CHECK(!sb_value_equal(n1, n2));
    sb_value_release(n2);
    sb_value_release(x);
    sb_value_release(y);
    sb_value_release(a);
    sb_value_release(b);
    sb_value_release(c);
    sb_value_release(n1);
}

static void test_json(void) {
    sb_value *d = sb_dict_new();
    sb_value *list = sb_array_new();
    sb_array_append_new(list, sb_bool(1));
    sb_array_append_new(list, sb_null());
    sb_array_append_new(list, sb_double(2.5));
    sb_array_append_new(list, sb_string("x\"y"));
    sb_dict_set_new(d, "b", list);
    sb_dict_set_new(d, "a", sb_int(1));
    sb_dict_set_new(d, "c", sb_bytes("\x01\xff", 2));
    sb_dict_set_new(d, "d", sb_double(3));
    char *json = sb_json_encode(d);
    /* Keys in the dict's order, not sorted. */
    CHECK_STR(json, "{\"b\":[true,null,2.5,\"x\\\"y\"],\"a\":1,\"c\":{\"$bytes\":\"01ff\"},\"d\":3.0}");
    sb_memory_free(json);
    sb_value_release(d);
    CHECK(sb_json_encode(NULL) == NULL);
    sb_memory_free(NULL);

    /* sb_json_decode reads sb_json_encode's output back to an equal value. */
    sb_value *original = sb_dict_new(), *back = NULL;
    sb_dict_set_new(original, "i", sb_int(-7));
    sb_dict_set_new(original, "d", sb_double(3));
    sb_dict_set_new(original, "b", sb_bytes("\0\xfe", 2));
    sb_dict_set_new(original, "s", sb_string("tab\tquote\""));
    json = sb_json_encode(original);
    CHECK_STATUS(sb_json_decode(json, &back), SB_OK);
    CHECK(sb_value_equal(original, back));
    CHECK(sb_value_type(sb_dict_get(back, "d")) == SB_DOUBLE && sb_value_type(sb_dict_get(back, "i")) == SB_INT);
    sb_memory_free(json);
    sb_value_release(back);
    sb_value_release(original);

    /* Malformed text: SB_EINVAL, *out NULL, and a message with the place. */
    back = sb_int(1);
    CHECK_STATUS(sb_json_decode("[1,\n 2,]", &back), SB_EINVAL);
    CHECK(back == NULL);
    CHECK(strstr(sb_error_message(), "line 2") != NULL);
    CHECK_STATUS(sb_json_decode("\"\xff\"", &back), SB_EINVAL);
    CHECK_STATUS(sb_json_decode("", &back), SB_EINVAL);
}

static void test_errors(void) {
    /* Every status, in order of its number: 0..14 without a gap, then
     * SB_PENDING. Each has a description of its own; the numbers are fixed. */
    const sb_status all[] = {SB_OK, SB_EINVAL, SB_ENOTARGET, SB_ENOACTION, SB_EACTION,
                             SB_ETYPE, SB_EREJECTED, SB_EBADURL, SB_ENOMEM, SB_EQUEUED,
                             SB_ETIMEOUT, SB_ECANCELED, SB_EPARAMS, SB_EWOULDBLOCK, SB_ENOTFOUND};
    size_t n = sizeof all / sizeof all[0];
    for (size_t i = 0; i < n; i++) {
        CHECK((size_t)all[i] == i);
        CHECK(sb_status_string(all[i]) != NULL && sb_status_string(all[i])[0] != '\0');
        CHECK(strcmp(sb_status_string(all[i]), "unknown status") != 0);
        CHECK(strcmp(sb_status_string(all[i]), sb_status_string(SB_PENDING)) != 0);
        for (size_t j = 0; j < i; j++) CHECK(strcmp(sb_status_string(all[i]), sb_status_string(all[j])) != 0);
    }
    CHECK(SB_PENDING == 64);
    CHECK_STR(sb_status_string(SB_ENOTFOUND), "no such name or id");
    CHECK_STR(sb_status_string((sb_status)(SB_ENOTFOUND + 1)), "unknown status");
    CHECK_STR(sb_status_string((sb_status)999), "unknown status");
    /* Names: each status's own, as Lua and the command spell them (the
     * constant without SB_), in the same order as `all`. */
    const char *const names[] = {"OK", "EINVAL", "ENOTARGET", "ENOACTION", "EACTION",
                                 "ETYPE", "EREJECTED", "EBADURL", "ENOMEM", "EQUEUED",
                                 "ETIMEOUT", "ECANCELED", "EPARAMS", "EWOULDBLOCK", "ENOTFOUND"};
    CHECK(sizeof names / sizeof names[0] == n);
    for (size_t i = 0; i < n; i++) CHECK_STR(sb_status_name(all[i]), names[i]);
    CHECK_STR(sb_status_name(SB_PENDING), "PENDING");
    CHECK_STR(sb_status_name((sb_status)(SB_ENOTFOUND + 1)), "EUNKNOWN");
    CHECK_STR(sb_status_name((sb_status)63), "EUNKNOWN");
    CHECK_STR(sb_status_name((sb_status)-1), "EUNKNOWN");
    CHECK(sb_error_message() != NULL);
    sb_error_set("answer %d", 42);
    CHECK_STR(sb_error_message(), "answer 42");
    sb_error_set(NULL);
    CHECK(sb_error_message() != NULL);
    /* Success does not clear the message. */
    sb_error_set("kept");
    sb_value_release(sb_int(1));
    CHECK_STR(sb_error_message(), "kept");
}

/* A getter's type failure leaves its message to be joined when read: read
 * on a failure, it is exact for every getter and kind; a later message
 * replaces it, one wrapping it reads it first, and another thread's stays
 * its own. */
static void *fail_on_another_thread(void *arg) {
    int64_t i;
    (void)arg;
    sb_error_set("other thread");
    sb_value *s = sb_string("x");
    int ok = sb_value_get_int(s, &i) == SB_ETYPE && strcmp(sb_error_message(), "sb_value_get_int: the value is a string") == 0;
    sb_value_release(s);
    return ok ? arg : NULL;
}

static sb_status answer_nothing(void *userdata, const sb_value *args, sb_value **out) {
    (void)userdata;
    (void)args;
    *out = NULL;
    return SB_OK;
}

static void test_getter_messages(void) {
    static int marker;
    int64_t i;
    double d;
    int b;
    void *p;
    sb_value *kinds[] = {sb_null(), sb_bool(1), sb_int(1), sb_double(1.5), sb_string("s"), sb_bytes("b", 1),
                         sb_array_new(), sb_dict_new(), sb_callback_new(answer_nothing, NULL, NULL), sb_pointer(&marker, NULL)};
    const char *const said[] = {"a null", "a bool", "an int", "a double", "a string", "a bytes", "an array", "a dict",
                                "a callback", "a pointer"};
    char want[128];
    int cases = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        CHECK(kinds[k] != NULL);
        if (sb_value_type(kinds[k]) != SB_BOOL) {
            CHECK_STATUS(sb_value_get_bool(kinds[k], &b), SB_ETYPE);
            snprintf(want, sizeof want, "sb_value_get_bool: the value is %s", said[k]);
            CHECK_STR(sb_error_message(), want);
            cases++;
        }
        if (sb_value_type(kinds[k]) != SB_INT) {
            CHECK_STATUS(sb_value_get_int(kinds[k], &i), SB_ETYPE);
            snprintf(want, sizeof want, "sb_value_get_int: the value is %s", said[k]);
            CHECK_STR(sb_error_message(), want);
            CHECK_STR(sb_error_message(), want); /* read twice: the same */
            cases++;
        }
        if (sb_value_type(kinds[k]) != SB_DOUBLE) {
            CHECK_STATUS(sb_value_get_double(kinds[k], &d), SB_ETYPE);
            snprintf(want, sizeof want, "sb_value_get_double: the value is %s", said[k]);
            CHECK_STR(sb_error_message(), want);
            cases++;
        }
        if (sb_value_type(kinds[k]) != SB_POINTER) {
            CHECK_STATUS(sb_value_get_pointer(kinds[k], &p), SB_ETYPE);
            snprintf(want, sizeof want, "sb_value_get_pointer: the value is %s", said[k]);
            CHECK_STR(sb_error_message(), want);
            cases++;
        }
    }
    /* Never read, then replaced: the later message is the one. */
    CHECK_STATUS(sb_value_get_int(kinds[4], &i), SB_ETYPE);
    sb_error_set("later %d", 2);
    CHECK_STR(sb_error_message(), "later 2");
    CHECK_STATUS(sb_value_get_int(kinds[4], &i), SB_ETYPE);
    CHECK_STATUS(sb_value_get_int(NULL, &i), SB_EINVAL);
    CHECK_STR(sb_error_message(), "sb_value_get_int: NULL argument");
    /* Wrapped while pending: the argument is read before it is replaced. */
    CHECK_STATUS(sb_value_get_double(kinds[2], &d), SB_ETYPE);
    sb_error_set("probing: %s", sb_error_message());
    CHECK_STR(sb_error_message(), "probing: sb_value_get_double: the value is an int");
    /* A success after it does not clear it; a long message before it does not show through. */
    sb_error_set("%0300d", 0);
    CHECK_STATUS(sb_value_get_bool(kinds[0], &b), SB_ETYPE);
    CHECK_STATUS(sb_value_get_int(kinds[2], &i), SB_OK);
    CHECK_STR(sb_error_message(), "sb_value_get_bool: the value is a null");
    /* Another thread's failures are its own. */
    pthread_t thread;
    void *result = NULL;
    sb_error_set("this thread");
    CHECK(pthread_create(&thread, NULL, fail_on_another_thread, &marker) == 0);
    CHECK(pthread_join(thread, &result) == 0);
    CHECK(result == &marker);
    CHECK_STR(sb_error_message(), "this thread");
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) sb_value_release(kinds[k]);
    robustness_row("Getter of the wrong kind: message joined only when read (read, never read, replaced, wrapped, other thread)",
                   cases + 5, "SB_ETYPE; the message exact when read, replaced by a later one, wrapped safely, per thread");
}

int main(void) {
    test_version();
    test_scalars();
    test_strings();
    test_pointers_and_refcounts();
    test_equal();
    test_json();
    test_errors();
    test_getter_messages();
    return check_report("values");
}
