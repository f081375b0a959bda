/* The wrappers `switchboard gen --lang c` writes, compiled with the strict
 * flags and run: Tests/generated/c/sb_typed.h over Target_Typed
 * (plugins/typed_plugin.c), whose actions answer with the params they got.
 * Checks that each argument arrives as its declared type under its contract
 * name, that NULL leaves a param out, that `sb_value *` arguments are taken
 * over on every path (also when the call fails), and what fails. */
#include "check.h"

#include "../generated/c/sb_typed.h"

#include <stdint.h>

static int freed;
static void count_free(void *p) {
    (void)p;
    freed++;
}

static sb_status answer(void *u, const sb_value *args, sb_value **out) {
    (void)u;
    (void)args;
    *out = sb_string("called");
    return SB_OK;
}

/* A callback whose userdata destructor counts, to see it released. */
static sb_value *counted_callback(void) {
    return sb_callback_new(answer, NULL, count_free);
}

static sb_type type_of(const sb_value *dict, const char *key) {
    const sb_value *v = sb_dict_get(dict, key);
    return v != NULL ? sb_typeof(v) : (sb_type)-1;
}

static void test_every_type(sb_mediator *m) {
    sb_value *out = NULL;
    freed = 0;
    CHECK_STATUS(sb_typed_everything(m, 1, 42, 2.5, "text", "\0\1\2", 3, sb_array_new(), sb_dict_new(),
                                     counted_callback(), sb_int(7), 0, &out),
                 SB_OK);
    CHECK(type_of(out, "flag") == SB_BOOL);
    CHECK(check_int(sb_dict_get(out, "count")) == 42);
    CHECK(type_of(out, "ratio") == SB_DOUBLE);
    CHECK_STR(sb_get_string(sb_dict_get(out, "name"), NULL), "text");
    size_t len = 0;
    const unsigned char *bytes = sb_get_bytes(sb_dict_get(out, "data"), &len);
    CHECK(bytes != NULL && len == 3 && bytes[0] == 0 && bytes[2] == 2);
    CHECK(type_of(out, "list") == SB_ARRAY);
    CHECK(type_of(out, "map") == SB_DICT);
    CHECK(type_of(out, "done") == SB_CALLBACK);
    CHECK(check_int(sb_dict_get(out, "anything")) == 7);
    CHECK(sb_count(out) == 9);
    CHECK(freed == 0); /* the result still holds the callback */
    sb_release(out);
    CHECK(freed == 1);
}

static void test_optional(sb_mediator *m) {
    sb_value *out = NULL;
    /* Everything left out: only the default arrives. */
    CHECK_STATUS(sb_typed_optional(m, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, &out), SB_OK);
    CHECK(sb_count(out) == 1);
    CHECK(check_int(sb_dict_get(out, "count")) == 7);
    sb_release(out);

    int flag = 0;
    int64_t count = -3;
    double ratio = 0.5;
    out = NULL;
    CHECK_STATUS(sb_typed_optional(m, &flag, &count, &ratio, "n", "b", 1, NULL, NULL, NULL, sb_null(), 0, &out),
                 SB_OK);
    CHECK(sb_count(out) == 6);
    int b = 1;
    CHECK(sb_get_bool(sb_dict_get(out, "flag"), &b) == SB_OK && b == 0);
    CHECK(check_int(sb_dict_get(out, "count")) == -3);
    CHECK(type_of(out, "anything") == SB_NULL);
    sb_release(out);
}

/* Contract names that are C keywords, not identifiers, or the wrapper's own
 * argument names keep their names in the params. */
static void test_odd_names(sb_mediator *m) {
    sb_value *out = NULL;
    int64_t d = 1, o = 2;
    int end = 1;
    CHECK_STATUS(sb_typed_odd_names(m, &d, "id", &end, "p", &o, 0, &out), SB_OK);
    CHECK(check_int(sb_dict_get(out, "default")) == 1);
    CHECK_STR(sb_get_string(sb_dict_get(out, "answer-id"), NULL), "id");
    CHECK(type_of(out, "end") == SB_BOOL);
    CHECK_STR(sb_get_string(sb_dict_get(out, "params"), NULL), "p");
    CHECK(check_int(sb_dict_get(out, "out")) == 2);
    sb_release(out);
}

static void test_results(sb_mediator *m) {
    sb_value *out = NULL;
    int64_t a = 1;
    CHECK_STATUS(sb_typed_count_keys(m, &a, NULL, 0, &out), SB_OK);
    CHECK(check_int(out) == 1);
    sb_release(out);
    out = NULL;
    /* A local action is reachable from C. */
    CHECK_STATUS(sb_typed_secret(m, 0, &out), SB_OK);
    CHECK(sb_typeof(out) == SB_DICT);
    sb_release(out);
    /* Declared -> string, answers a dict: the mediator reports it. */
    CHECK_STATUS(sb_typed_wrong_result(m, 0, &out), SB_ETYPE);
    CHECK(out == NULL);
    CHECK_STR(sb_last_error(), "Typed.wrongResult: expected a string result, got dict");
}

static sb_status fallback_dict(void *u, const sb_value *args, sb_value **out) {
    (void)u;
    (void)args;
    *out = sb_dict_new();
    return SB_OK;
}

/* A fallback may not answer a typed wrapper (as in Swift and Lua): the
 * wrapper fails with what the call gets when nothing answers, while a plain
 * sb_perform still falls back. */
static void test_no_fallback(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    CHECK_STATUS(sb_register_action(m, "NoTargetAction", "response", fallback_dict, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_typed_optional(m, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, &out),
                 SB_ENOTARGET);
    CHECK(out == NULL);
    CHECK_STATUS(sb_typed_count_keys(m, NULL, NULL, SB_CACHE_TARGET, &out), SB_ENOTARGET);
    CHECK(out == NULL);
    CHECK_STATUS(sb_register_action(m, "Typed", "other", fallback_dict, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_typed_secret(m, 0, &out), SB_ENOACTION);
    CHECK(out == NULL);
    CHECK_STATUS(sb_perform(m, "Typed", "secret", NULL, 0, &out), SB_OK);
    CHECK(sb_typeof(out) == SB_DICT);
    sb_release(out);
    /* The flag the wrappers use, on its own. */
    CHECK_STATUS(sb_perform(m, "Nowhere", "x", NULL, SB_NO_FALLBACK, &out), SB_ENOTARGET);
    sb_call_options options = {SB_NO_FALLBACK, NULL, 0, NULL, 0};
    CHECK_STATUS(sb_perform_opts(m, "Nowhere", "x", NULL, &options, &out), SB_ENOTARGET);
    robustness_row("Fallback answering a typed generated C wrapper (no target, no action, cached, flag alone, opts)", 5,
                   "SB_ENOTARGET / SB_ENOACTION; the fallback does not run");
    sb_mediator_free(m);
}

/* Failures: the owned arguments are released on each path and *out is NULL. */
static void test_failures(sb_mediator *m) {
    sb_value *out = sb_int(1);
    sb_value *stale = out;
    freed = 0;
    /* A required string left out: the contract answers. */
    CHECK_STATUS(sb_typed_everything(m, 1, 1, 1.0, NULL, "", 0, sb_array_new(), sb_dict_new(),
                                     counted_callback(), sb_int(0), 0, &out),
                 SB_EPARAMS);
    CHECK(ERROR_MENTIONS("\"name\""));
    CHECK(out == NULL);
    CHECK(freed == 1);
    sb_release(stale);

    /* Text that is not UTF-8 fails before the call; what follows is still released. */
    out = NULL;
    CHECK_STATUS(sb_typed_everything(m, 1, 1, 1.0, "\xff", "", 0, NULL, NULL, counted_callback(), NULL, 0, &out),
                 SB_EINVAL);
    CHECK(out == NULL);
    CHECK(freed == 2);

    /* No mediator. */
    CHECK_STATUS(sb_typed_optional(NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, counted_callback(), NULL, 0,
                                   &out),
                 SB_EINVAL);
    CHECK(freed == 3);
    /* No out: sb_perform drops the result; nothing leaks. */
    CHECK_STATUS(sb_typed_optional(m, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, counted_callback(), NULL, 0, NULL),
                 SB_OK);
    CHECK(freed == 4);
}

int main(int argc, char **argv) {
    char path[4096];
    snprintf(path, sizeof path, "%s/typed_plugin.so", argc > 1 ? argv[1] : ".");
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_load_plugin(m, path), SB_OK);
    test_every_type(m);
    test_optional(m);
    test_odd_names(m);
    test_results(m);
    test_failures(m);
    sb_mediator_free(m);
    test_no_fallback();
    return check_report("generated");
}
