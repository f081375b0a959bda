/* Resources running out around a call: no thread can be started, no
 * pthread key is left. Each must become a status with a message (or keep
 * working), never a trap: the library trapped (SIGILL, a Swift
 * precondition) on both. test_no_keys.c covers a host that used every key
 * before it even loaded the library. */
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>

#include "check.h"

static void sleep_ms(int ms) {
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* An action that answers later: the id is kept for the test to complete. */
static sb_completion held;
static sb_status holds(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)params, (void)out;
    held = sb_completion_take();
    return SB_PENDING;
}

static int done_calls;
static sb_status done_status;
static char done_message[256];
static void done(void *ud, sb_status status, sb_value *result) {
    (void)ud;
    done_calls++;
    done_status = status;
    snprintf(done_message, sizeof done_message, "%s", sb_error_message());
    sb_value_release(result);
}

/* pthread_create fails (the default stack is larger than the address
 * space): the first call with a timeout needs the watch thread. */
static void test_no_thread_for_the_watch(sb_mediator *m) {
    pthread_attr_t huge, normal;
    pthread_getattr_default_np(&normal);
    pthread_attr_init(&huge);
    pthread_attr_setstacksize(&huge, (size_t)1 << 46);
    pthread_setattr_default_np(&huge);

    /* A deadline far off: under valgrind a short one can pass before the
     * call is watched, and the call then times out without a thread. */
    sb_call_options far = SB_CALL_OPTIONS_INIT;
    far.timeout_ms = 60000;
    done_calls = 0;
    CHECK_STATUS(sb_action_perform_async(m, "Slow", "hold", NULL, &far, done, NULL), SB_OK);
    CHECK(done_calls == 1 && done_status == SB_ENOMEM);
    CHECK(strstr(done_message, "cannot start the thread that times out") != NULL);
    /* The action's work may still complete: it is told the caller is gone. */
    CHECK_STATUS(sb_completion_succeed(held, sb_int(1)), SB_ECANCELED);

    /* Threads again: the same call times out as it should. */
    pthread_setattr_default_np(&normal);
    pthread_attr_destroy(&huge);
    pthread_attr_destroy(&normal);
    sb_call_options timed = SB_CALL_OPTIONS_INIT;
    timed.timeout_ms = 50;
    done_calls = 0;
    /* SB_OK when the 50 ms passed before the call was watched (valgrind). */
    sb_status started = sb_action_perform_async(m, "Slow", "hold", NULL, &timed, done, NULL);
    CHECK(started == SB_PENDING || started == SB_OK);
    for (int i = 0; i < 400 && __atomic_load_n(&done_calls, __ATOMIC_ACQUIRE) == 0; i++) sleep_ms(5);
    CHECK(done_calls == 1 && done_status == SB_ETIMEOUT);
    CHECK_STATUS(sb_completion_succeed(held, NULL), SB_ETIMEOUT);
    robustness_row("No thread can be started for the first call with a timeout (pthread_create fails)", 1,
                   "done gets SB_ENOMEM naming the thread; once threads can start, timeouts work");
}

/* The host takes every pthread key left, then uses the library in ways
 * that each kept per-thread state under a key of its own, made on first
 * use: discovery, answering later, call options, URL refusals, errors. */
static void test_no_key_left(sb_mediator *m, const char *plugin_dir) {
    static pthread_key_t taken[2048];
    int count = 0;
    while (count < 2048 && pthread_key_create(&taken[count], NULL) == 0) count++;
    CHECK(count < 2048); /* the process really ran out */

    sb_value *out = NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/test_plugin.so", plugin_dir);
    CHECK_STATUS(sb_plugin_load(m, path), SB_OK);
    /* Discovery: found by name in the plugin, then a name nothing has. */
    CHECK_STATUS(sb_action_perform(m, "Stateless", "stateIsNull", NULL, 0, &out), SB_OK);
    sb_value_release(out);
    out = NULL;
    CHECK_STATUS(sb_action_perform(m, "NowhereAtAll", "x", NULL, 0, &out), SB_ENOTARGET);
    CHECK(ERROR_MENTIONS("NowhereAtAll"));
    /* Answering later, with a cancellation token and a timeout. */
    sb_cancellation *token = sb_cancellation_new();
    sb_call_options opts = SB_CALL_OPTIONS_INIT;
    opts.cancel = token;
    opts.timeout_ms = 20;
    CHECK_STATUS(sb_action_perform_opts(m, "Slow", "hold", NULL, &opts, &out), SB_ETIMEOUT);
    CHECK_STATUS(sb_completion_succeed(held, NULL), SB_ETIMEOUT);
    sb_cancellation_free(token);
    /* A URL refused at dispatch (a native action). */
    CHECK_STATUS(sb_url_open(m, "app://Slow/nativeHold", NULL, &out), SB_EREJECTED);

    for (int i = 0; i < count; i++) pthread_key_delete(taken[i]);
    robustness_row("Every pthread key used by the host, then discovery, answering later, options, URL refusals", 5,
                   "each works or fails with its usual status: the library's per-thread state needs no new key");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s PLUGIN-DIR\n", argv[0]);
        return 2;
    }
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(m, "Slow", "hold", holds, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "Slow", "nativeHold", holds, NULL, NULL), SB_OK);
    test_no_thread_for_the_watch(m);
    test_no_key_left(m, argv[1]);
    sb_mediator_free(m);
    return check_report("exhaustion");
}
