/* The wrappers `switchboard gen --lang c` writes, compiled with the strict
 * flags and run: Tests/generated/c/sb_typed.h over Target_Typed
 * (plugins/typed_plugin.c), whose actions answer with the params they got.
 * Checks that each argument arrives as its declared type under its contract
 * name, that NULL leaves a param out, that `sb_value *` arguments are taken
 * over on every path (also when the call fails), and what fails. */
#include "check.h"

#include "../generated/c/sb_typed.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

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
    return v != NULL ? sb_value_type(v) : (sb_type)-1;
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
    CHECK_STR(sb_value_get_string(sb_dict_get(out, "name"), NULL), "text");
    size_t len = 0;
    const unsigned char *bytes = sb_value_get_bytes(sb_dict_get(out, "data"), &len);
    CHECK(bytes != NULL && len == 3 && bytes[0] == 0 && bytes[2] == 2);
    CHECK(type_of(out, "list") == SB_ARRAY);
    CHECK(type_of(out, "map") == SB_DICT);
    CHECK(type_of(out, "done") == SB_CALLBACK);
    CHECK(check_int(sb_dict_get(out, "anything")) == 7);
    CHECK(sb_value_count(out) == 9);
    CHECK(freed == 0); /* the result still holds the callback */
    sb_value_release(out);
    CHECK(freed == 1);
}

static void test_optional(sb_mediator *m) {
    sb_value *out = NULL;
    /* Everything left out: only the default arrives. */
    CHECK_STATUS(sb_typed_optional(m, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, &out), SB_OK);
    CHECK(sb_value_count(out) == 1);
    CHECK(check_int(sb_dict_get(out, "count")) == 7);
    sb_value_release(out);

    int flag = 0;
    int64_t count = -3;
    double ratio = 0.5;
    out = NULL;
    CHECK_STATUS(sb_typed_optional(m, &flag, &count, &ratio, "n", "b", 1, NULL, NULL, NULL, sb_null(), 0, &out),
                 SB_OK);
    CHECK(sb_value_count(out) == 6);
    int b = 1;
    CHECK(sb_value_get_bool(sb_dict_get(out, "flag"), &b) == SB_OK && b == 0);
    CHECK(check_int(sb_dict_get(out, "count")) == -3);
    CHECK(type_of(out, "anything") == SB_NULL);
    sb_value_release(out);
}

/* Contract names that are C keywords, not identifiers, or the wrapper's own
 * argument names keep their names in the params. */
static void test_odd_names(sb_mediator *m) {
    sb_value *out = NULL;
    int64_t d = 1, o = 2;
    int end = 1;
    CHECK_STATUS(sb_typed_odd_names(m, &d, "id", &end, "p", &o, 0, &out), SB_OK);
    CHECK(check_int(sb_dict_get(out, "default")) == 1);
    CHECK_STR(sb_value_get_string(sb_dict_get(out, "answer-id"), NULL), "id");
    CHECK(type_of(out, "end") == SB_BOOL);
    CHECK_STR(sb_value_get_string(sb_dict_get(out, "params"), NULL), "p");
    CHECK(check_int(sb_dict_get(out, "out")) == 2);
    sb_value_release(out);
}

static void test_results(sb_mediator *m) {
    sb_value *out = NULL;
    int64_t a = 1;
    CHECK_STATUS(sb_typed_count_keys(m, &a, NULL, 0, &out), SB_OK);
    CHECK(check_int(out) == 1);
    sb_value_release(out);
    out = NULL;
    /* A local action is reachable from C. */
    CHECK_STATUS(sb_typed_secret(m, 0, &out), SB_OK);
    CHECK(sb_value_type(out) == SB_DICT);
    sb_value_release(out);
    /* Declared -> string, answers a dict: the mediator reports it. */
    CHECK_STATUS(sb_typed_wrong_result(m, 0, &out), SB_ETYPE);
    CHECK(out == NULL);
    CHECK_STR(sb_error_message(), "Typed.wrongResult: expected a string result, got dict");
}

static sb_status fallback_dict(void *u, const sb_value *args, sb_value **out) {
    (void)u;
    (void)args;
    *out = sb_dict_new();
    return SB_OK;
}

/* A fallback may not answer a typed wrapper (as in Swift and Lua): the
 * wrapper fails with what the call gets when nothing answers, while a plain
 * sb_action_perform still falls back. */
static void test_no_fallback(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", fallback_dict, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_typed_optional(m, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, &out),
                 SB_ENOTARGET);
    CHECK(out == NULL);
    CHECK_STATUS(sb_typed_count_keys(m, NULL, NULL, SB_CACHE_TARGET, &out), SB_ENOTARGET);
    CHECK(out == NULL);
    CHECK_STATUS(sb_action_register(m, "Typed", "other", fallback_dict, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_typed_secret(m, 0, &out), SB_ENOACTION);
    CHECK(out == NULL);
    CHECK_STATUS(sb_action_perform(m, "Typed", "secret", NULL, 0, &out), SB_OK);
    CHECK(sb_value_type(out) == SB_DICT);
    sb_value_release(out);
    /* The flag the wrappers use, on its own. */
    CHECK_STATUS(sb_action_perform(m, "Nowhere", "x", NULL, SB_NO_FALLBACK, &out), SB_ENOTARGET);
    sb_call_options options = {SB_CALL_OPTIONS_VERSION, SB_NO_FALLBACK, NULL, 0, NULL, 0, NULL};
    CHECK_STATUS(sb_action_perform_opts(m, "Nowhere", "x", NULL, &options, &out), SB_ENOTARGET);
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
    sb_value_release(stale);

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
    /* No out: sb_action_perform drops the result; nothing leaks. */
    CHECK_STATUS(sb_typed_optional(m, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, counted_callback(), NULL, 0, NULL),
                 SB_OK);
    CHECK(freed == 4);
}

/* What `done` got, guarded: it may run on the library's watch thread. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int calls;
    sb_status status;
    char text[64];
} done_log;

static void log_done(void *userdata, sb_status status, sb_value *result) {
    done_log *log = userdata;
    pthread_mutex_lock(&log->lock);
    log->calls++;
    log->status = status;
    const char *text = result != NULL ? sb_value_get_string(result, NULL) : NULL;
    snprintf(log->text, sizeof log->text, "%s", text != NULL ? text : "");
    pthread_cond_broadcast(&log->changed);
    pthread_mutex_unlock(&log->lock);
    sb_value_release(result);
}

static void log_init(done_log *log) {
    memset(log, 0, sizeof *log);
    pthread_mutex_init(&log->lock, NULL);
    pthread_cond_init(&log->changed, NULL);
}

static int log_calls(done_log *log) {
    pthread_mutex_lock(&log->lock);
    int calls = log->calls;
    pthread_mutex_unlock(&log->lock);
    return calls;
}

/* Waits until `done` ran (the watch thread ends a call that timed out). */
static void log_wait(done_log *log) {
    pthread_mutex_lock(&log->lock);
    while (log->calls == 0) pthread_cond_wait(&log->changed, &log->lock);
    pthread_mutex_unlock(&log->lock);
}

static void log_destroy(done_log *log) {
    pthread_cond_destroy(&log->changed);
    pthread_mutex_destroy(&log->lock);
}

/* Typed.finishLater: completes the call later / laterAny left waiting;
 * returns what the completion got (SB_OK, or SB_ETIMEOUT once the caller
 * stopped waiting). */
static sb_status finish_later(sb_mediator *m) {
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_perform(m, "Typed", "finishLater", NULL, 0, &out), SB_OK);
    sb_status completed = (sb_status)check_int(out);
    sb_value_release(out);
    return completed;
}

/* An async action's wrapper (the contract says `async`) takes options, done
 * and userdata, returns at once with SB_PENDING, and done gets the typed
 * result when the action completes. */
static void test_answers_later(sb_mediator *m) {
    done_log log;
    log_init(&log);
    CHECK_STATUS(sb_typed_later(m, 5, NULL, log_done, &log), SB_PENDING);
    CHECK(log_calls(&log) == 0);
    CHECK_STATUS(finish_later(m), SB_OK);
    CHECK(log_calls(&log) == 1);
    CHECK_STATUS(log.status, SB_OK);
    CHECK_STR(log.text, "later 5");
    log_destroy(&log);

    /* No declared result: options pass through as they are. */
    log_init(&log);
    sb_call_options options = {SB_CALL_OPTIONS_VERSION, SB_CACHE_TARGET, NULL, 0, NULL, 0, NULL};
    CHECK_STATUS(sb_typed_later_any(m, &options, log_done, &log), SB_PENDING);
    CHECK_STATUS(finish_later(m), SB_OK);
    CHECK(log_calls(&log) == 1);
    CHECK_STR(log.text, "later 0");
    log_destroy(&log);

    /* The caller's timeout: done gets SB_ETIMEOUT, the late completion is
     * refused. (Under valgrind the deadline may pass before the call
     * returns: then done has run already, and the call says SB_OK.) */
    log_init(&log);
    sb_call_options timed = {SB_CALL_OPTIONS_VERSION, 0, NULL, 0, NULL, 20, NULL};
    sb_status started = sb_typed_later(m, 6, &timed, log_done, &log);
    CHECK(started == SB_PENDING || started == SB_OK);
    log_wait(&log);
    CHECK_STATUS(log.status, SB_ETIMEOUT);
    CHECK_STATUS(finish_later(m), SB_ETIMEOUT);
    CHECK(log_calls(&log) == 1);
    log_destroy(&log);

    /* The params are checked before the action runs: the failure reaches done at once. */
    log_init(&log);
    CHECK_STATUS(sb_typed_later_any(NULL, NULL, log_done, &log), SB_EINVAL);
    CHECK_STATUS(sb_typed_later(m, 1, NULL, NULL, NULL), SB_EINVAL);
    CHECK(log_calls(&log) == 0);
    log_destroy(&log);
    robustness_row("Generated C wrapper of an async action (later, timeout, NULL mediator or done)", 5,
                   "SB_PENDING then done once with the result or SB_ETIMEOUT; SB_EINVAL and done never runs");
}

/* No fallback answers an async wrapper whose action declares a result,
 * even with the caller's own options. */
static void test_answers_later_no_fallback(void) {
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", fallback_dict, NULL, NULL), SB_OK);
    done_log log;
    log_init(&log);
    sb_call_options options = {SB_CALL_OPTIONS_VERSION, SB_CACHE_TARGET, NULL, 0, NULL, 0, NULL};
    CHECK_STATUS(sb_typed_later(m, 1, &options, log_done, &log), SB_OK);
    CHECK(log_calls(&log) == 1);
    CHECK_STATUS(log.status, SB_ENOTARGET);
    CHECK(options.flags == SB_CACHE_TARGET); /* the caller's options are not changed */
    log_destroy(&log);
    /* Without a declared result the fallback answers, as sb_action_perform_async's would. */
    log_init(&log);
    CHECK_STATUS(sb_typed_later_any(m, NULL, log_done, &log), SB_OK);
    CHECK(log_calls(&log) == 1);
    CHECK_STATUS(log.status, SB_OK);
    log_destroy(&log);
    sb_mediator_free(m);
}

int main(int argc, char **argv) {
    char path[4096];
    snprintf(path, sizeof path, "%s/typed_plugin.so", argc > 1 ? argv[1] : ".");
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_plugin_load(m, path), SB_OK);
    test_every_type(m);
    test_optional(m);
    test_odd_names(m);
    test_results(m);
    test_failures(m);
    test_answers_later(m);
    sb_mediator_free(m);
    test_no_fallback();
    test_answers_later_no_fallback();
    return check_report("generated");
}
