/* Callbacks: calling, results and failures, the userdata destructor. */
#include "check.h"

#include <stdint.h>

static int freed;
static void *freed_with;
static void free_userdata(void *p) {
    freed++;
    freed_with = p;
}

static int pointers_destroyed;
static void count_destroy(void *p) {
    (void)p;
    pointers_destroyed++;
}

/* Adds userdata (an int) to args (an int). */
static sb_status add(void *userdata, const sb_value *args, sb_value **out) {
    int64_t n = 0;
    if (sb_value_get_int(args, &n) != SB_OK) {
        sb_error_set("add: args must be an int");
        return SB_ETYPE;
    }
    *out = sb_int(n + *(int *)userdata);
    return SB_OK;
}

static sb_status succeed_without_result(void *u, const sb_value *a, sb_value **out) {
    (void)u; (void)a; (void)out;
    return SB_OK;
}

static sb_status fail_with_result(void *u, const sb_value *a, sb_value **out) {
    (void)u; (void)a;
    *out = sb_pointer(NULL, count_destroy);
    sb_error_set("fail_with_result: no");
    return SB_EREJECTED;
}

static sb_status fail_unknown(void *u, const sb_value *a, sb_value **out) {
    (void)u; (void)a; (void)out;
    return (sb_status)1234;
}

static sb_status fail_silently(void *u, const sb_value *a, sb_value **out) {
    (void)u; (void)a; (void)out;
    return SB_ENOACTION;
}

static void test_call(void) {
    int ten = 10;
    freed = 0;
    sb_value *cb = sb_callback_new(add, &ten, free_userdata);
    CHECK(sb_value_type(cb) == SB_CALLBACK);
    sb_value *args = sb_int(5), *out = NULL;
    CHECK_STATUS(sb_callback_call(cb, args, &out), SB_OK);
    CHECK(check_int(out) == 15);
    sb_value_release(out);
    CHECK_STATUS(sb_callback_call(cb, args, NULL), SB_OK); /* result discarded */
    out = sb_int(0);
    sb_value *stale = out;
    CHECK_STATUS(sb_callback_call(cb, NULL, &out), SB_ETYPE); /* NULL args read as SB_NULL */
    CHECK(out == NULL);
    CHECK(ERROR_MENTIONS("args must be an int"));
    sb_value_release(stale);

    /* The destructor runs once, when the last reference goes. */
    sb_value *holder = sb_dict_new();
    sb_dict_set(holder, "cb", cb);
    sb_value_release(cb);
    CHECK(freed == 0);
    sb_value_release(holder);
    CHECK(freed == 1 && freed_with == &ten);
    sb_value_release(args);
}

static void test_results_and_failures(void) {
    sb_value *out = NULL;
    sb_value *cb = sb_callback_new(succeed_without_result, NULL, NULL);
    CHECK_STATUS(sb_callback_call(cb, NULL, &out), SB_OK);
    CHECK(out != NULL && sb_value_type(out) == SB_NULL); /* never NULL on success */
    sb_value_release(out);
    sb_value_release(cb);

    pointers_destroyed = 0;
    cb = sb_callback_new(fail_with_result, NULL, NULL);
    CHECK_STATUS(sb_callback_call(cb, NULL, &out), SB_EREJECTED); /* status passes through */
    CHECK(out == NULL && pointers_destroyed == 1);              /* the leftover is released */
    CHECK_STR(sb_error_message(), "fail_with_result: no");
    sb_value_release(cb);

    cb = sb_callback_new(fail_unknown, NULL, NULL);
    CHECK_STATUS(sb_callback_call(cb, NULL, &out), SB_EACTION);
    CHECK(ERROR_MENTIONS("1234"));
    sb_value_release(cb);

    sb_error_set("stale message");
    cb = sb_callback_new(fail_silently, NULL, NULL);
    CHECK_STATUS(sb_callback_call(cb, NULL, &out), SB_ENOACTION);
    CHECK(!ERROR_MENTIONS("stale")); /* the library supplies a message */
    sb_value_release(cb);
}

static void test_bad_arguments(void) {
    int x = 0;
    freed = 0;
    CHECK(sb_callback_new(NULL, &x, free_userdata) == NULL);
    CHECK(freed == 1 && freed_with == &x); /* runs even when creation fails */
    sb_value *out = NULL, *i = sb_int(1);
    CHECK_STATUS(sb_callback_call(NULL, NULL, &out), SB_EINVAL);
    CHECK_STATUS(sb_callback_call(i, NULL, &out), SB_ETYPE);
    CHECK(out == NULL);
    sb_value_release(i);
}

int main(void) {
    test_call();
    test_results_and_failures();
    test_bad_arguments();
    return check_report("callbacks");
}
