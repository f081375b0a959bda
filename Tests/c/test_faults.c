/* Faults on the C side, each followed by a check that the mediator is
 * intact (a normal perform still answers): failing actions, re-entrant
 * performs without end (through every entry point, and on a small stack),
 * plugin files that are not plugins, and callbacks used in odd ways.
 * Each class adds a row to docs/ROBUSTNESS.md (check.h). */
#include "check.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *plugin_dir;
static const char *self_path;

static sb_status echo(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    *out = sb_retain((sb_value *)params);
    return SB_OK;
}

/* The mediator still answers a normal call. */
static int intact(sb_mediator *m) {
    sb_value *params = sb_dict_new(), *out = NULL;
    sb_dict_set_new(params, "ok", sb_int(7));
    int good = sb_register_action(m, "Healthy", "echo", echo, NULL, NULL) == SB_OK &&
               sb_perform(m, "Healthy", "echo", params, 0, &out) == SB_OK && sb_equal(out, params);
    sb_release(out);
    sb_release(params);
    return good;
}

/* ------------------------------------------------------- failing actions */

static sb_status fail_with(void *u, const sb_value *params, sb_value **out) {
    (void)params;
    *out = sb_string("a result left behind"); /* must be released, not returned */
    sb_set_error("fault %d", (int)(intptr_t)u);
    return (sb_status)(intptr_t)u;
}

static void test_failing_actions(void) {
    const int statuses[] = {SB_EINVAL, SB_ENOTARGET, SB_ENOACTION, SB_EACTION, SB_ETYPE, SB_EREJECTED,
                            SB_EBADURL, SB_ENOMEM, SB_EQUEUED, 77, -1};
    const int n = (int)(sizeof statuses / sizeof statuses[0]);
    sb_mediator *m = sb_mediator_new();
    for (int i = 0; i < n; i++) {
        int s = statuses[i];
        sb_value *out = NULL;
        CHECK_STATUS(sb_register_action(m, "Faulty", "act", fail_with, (void *)(intptr_t)s, NULL), SB_OK);
        sb_status expected = s >= SB_EINVAL && s <= SB_EQUEUED ? (sb_status)s : SB_EACTION;
        CHECK_STATUS(sb_perform(m, "Faulty", "act", NULL, 0, &out), expected);
        CHECK(out == NULL && ERROR_MENTIONS("fault"));
        CHECK(intact(m));
    }
    sb_mediator_free(m);
    robustness_row("C action fails (every status, unknown numbers, a result left in *out)", n,
                   "status passed through (unknown numbers become SB_EACTION), message kept, result released");
}

/* ------------------------------------------------ re-entrancy without end */

static sb_mediator *deep_m;
static sb_route *deep_route;
static int deepest, stop_at;

/* Performs itself again through the entry point named by `how`, until
 * `stop_at` (0: never). */
static sb_status recurse(void *how, const sb_value *params, sb_value **out) {
    (void)params;
    int depth = ++deepest;
    if (stop_at != 0 && depth >= stop_at) {
        *out = sb_int(depth);
        return SB_OK;
    }
    const char *entry = how;
    if (strcmp(entry, "perform") == 0) return sb_perform(deep_m, "Deep", "perform", NULL, 0, out);
    if (strcmp(entry, "route") == 0) return sb_route_call(deep_route, NULL, out);
    return sb_open_url(deep_m, "app://Deep/url", NULL, out);
}

static sb_status run_deep(const char *entry, int stop) {
    sb_value *out = NULL;
    deepest = 0;
    stop_at = stop;
    sb_status s = strcmp(entry, "route") == 0 ? sb_route_call(deep_route, NULL, &out)
                                              : sb_perform(deep_m, "Deep", entry, NULL, 0, &out);
    if (s == SB_OK) CHECK(check_int(out) == stop);
    else CHECK(out == NULL);
    sb_release(out);
    return s;
}

static void *deep_on_thread(void *entry) {
    sb_status s = run_deep(entry, 0);
    return (void *)(intptr_t)s;
}

static void test_reentrancy(void) {
    static const char *entries[] = {"perform", "route", "url"};
    deep_m = sb_mediator_new();
    for (int i = 0; i < 3; i++)
        CHECK_STATUS(sb_register_action(deep_m, "Deep", entries[i], recurse, (void *)entries[i], NULL), SB_OK);
    CHECK_STATUS(sb_route_prepare(deep_m, "Deep", "route", 0, &deep_route), SB_OK);

    for (int i = 0; i < 3; i++) {
        /* Without end: refused at call SB_MAX_CALL_DEPTH + 1, every level unwinds. */
        CHECK_STATUS(run_deep(entries[i], 0), SB_EREJECTED);
        CHECK(ERROR_MENTIONS("call depth limit") && ERROR_MENTIONS("1001"));
        CHECK(deepest == SB_MAX_CALL_DEPTH);
        /* Exactly SB_MAX_CALL_DEPTH nested calls are allowed. */
        CHECK_STATUS(run_deep(entries[i], SB_MAX_CALL_DEPTH), SB_OK);
        CHECK(intact(deep_m));
    }

    /* On a thread with a 256 KiB stack the stack runs short first: refused
     * with a clear error, still before it overflows. */
    pthread_attr_t attr;
    pthread_t thread;
    void *status = NULL;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    CHECK(pthread_create(&thread, &attr, deep_on_thread, "perform") == 0);
    pthread_join(thread, &status);
    pthread_attr_destroy(&attr);
    CHECK((sb_status)(intptr_t)status == SB_EREJECTED);
    CHECK(deepest > 32 && deepest < SB_MAX_CALL_DEPTH);
    CHECK(intact(deep_m));

    sb_route_free(deep_route);
    sb_mediator_free(deep_m);
    robustness_row("Re-entrant perform without end (sb_perform, sb_route_call, sb_open_url; a 256 KiB thread)", 4,
                   "SB_EREJECTED \"call depth limit\" at call 1001 (sooner on a small stack); all levels unwind");
}

/* ------------------------------------------------------------ bad plugins */

static volatile sig_atomic_t alarm_went_off;
static void alarm_rang(int signal) {
    (void)signal;
    alarm_went_off = 1;
}

static void test_bad_plugins(void) {
    char path[4096], truncated[4096], empty[4096];
    snprintf(truncated, sizeof truncated, "%s/truncated_plugin.so", plugin_dir);
    snprintf(empty, sizeof empty, "%s/empty_file.so", plugin_dir);
    /* A real plugin cut short, and an empty file. */
    snprintf(path, sizeof path, "%s/test_plugin.so", plugin_dir);
    FILE *in = fopen(path, "rb"), *out = fopen(truncated, "wb");
    char head[700];
    size_t got = in ? fread(head, 1, sizeof head, in) : 0;
    if (out) fwrite(head, 1, got, out);
    if (in) fclose(in);
    if (out) fclose(out);
    out = fopen(empty, "wb");
    if (out) fclose(out);

    /* A FIFO with no writer (opening it to read blocks until one comes):
     * refused at once. The alarm only turns a hang into a failure. */
    char fifo[4096];
    snprintf(fifo, sizeof fifo, "%s/fifo_plugin.so", plugin_dir);
    remove(fifo);
    CHECK(mkfifo(fifo, 0600) == 0);

    const char *bad[] = {"does_not_exist.so", "not_a_plugin.txt", "bad_abi_plugin.so", "bad_actions_plugin.so",
                         "truncated_plugin.so", "empty_file.so", ".", "fifo_plugin.so", "small_symbol_plugin.so",
                         "small_contracts_plugin.so", "/proc/self/maps", NULL /* an executable: this program */};
    /* What the message says beside the file's name. */
    const char *why[] = {NULL, NULL, NULL, NULL, NULL, NULL, "not a regular file", "not a regular file",
                         "Target_Tiny is 4 bytes", "Contracts_Small is 3 bytes", "procfs", NULL};
    const int n = (int)(sizeof bad / sizeof bad[0]);
    sb_mediator *m = sb_mediator_new();
    struct sigaction on_alarm, saved;
    memset(&on_alarm, 0, sizeof on_alarm);
    on_alarm.sa_handler = alarm_rang; /* no SA_RESTART: a blocked open() fails with EINTR */
    sigemptyset(&on_alarm.sa_mask);
    sigaction(SIGALRM, &on_alarm, &saved);
    for (int i = 0; i < n; i++) {
        if (bad[i] == NULL) snprintf(path, sizeof path, "%s", self_path);
        else if (bad[i][0] == '/') snprintf(path, sizeof path, "%s", bad[i]);
        else snprintf(path, sizeof path, "%s/%s", plugin_dir, bad[i]);
        alarm_went_off = 0;
        alarm(20);
        CHECK_STATUS(sb_load_plugin(m, path), SB_EINVAL);
        alarm(0);
        CHECK(!alarm_went_off);
        /* The message names the file (a directory: says what it is; the
         * real path of /proc/self/maps names the process). */
        const char *name = bad[i] == NULL ? self_path : bad[i][0] == '/' ? strrchr(bad[i], '/') + 1 : bad[i];
        CHECK(bad[i] == NULL || strcmp(bad[i], ".") != 0 ? ERROR_MENTIONS(name) : 1);
        CHECK(why[i] == NULL || ERROR_MENTIONS(why[i]));
        CHECK(intact(m));
    }
    sigaction(SIGALRM, &saved, NULL);
    remove(fifo);
    CHECK_STATUS(sb_perform(m, "Tiny", "anything", NULL, 0, &(sb_value *){NULL}), SB_ENOTARGET);
    CHECK_STATUS(sb_perform(m, "Small", "noop", NULL, 0, &(sb_value *){NULL}), SB_ENOTARGET);
    /* Nothing of the refused plugins was registered (Target_Broken's tables). */
    sb_value *result = NULL;
    CHECK_STATUS(sb_perform(m, "Broken", "anything", NULL, 0, &result), SB_ENOTARGET);
    sb_mediator_free(m);
    remove(truncated);
    remove(empty);
    robustness_row("Plugin that is missing, not a shared object (text, empty, truncated ELF, directory, "
                   "executable, a FIFO, a /proc file), wrong ABI version, malformed Target_ table, a Target_ or "
                   "Contracts_ symbol smaller than its table", n,
                   "SB_EINVAL naming the file; nothing registered");
}

/* -------------------------------------------------------------- callbacks */

static pthread_mutex_t calls_lock = PTHREAD_MUTEX_INITIALIZER;
static int calls, destroyed;

static sb_status count_call(void *u, const sb_value *args, sb_value **out) {
    (void)u;
    pthread_mutex_lock(&calls_lock);
    calls++;
    pthread_mutex_unlock(&calls_lock);
    *out = sb_retain((sb_value *)args);
    return SB_OK;
}
static void count_destroy(void *u) {
    (void)u;
    destroyed++;
}

/* An action that hands its callback back (C keeps it past the call). */
static sb_status give_back(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    *out = sb_retain(sb_dict_get(params, "cb"));
    return SB_OK;
}

static void *call_many(void *cb) {
    for (int i = 0; i < 1000; i++) {
        sb_value *out = NULL;
        if (sb_callback_call(cb, NULL, &out) != SB_OK) return (void *)1;
        sb_release(out);
    }
    return NULL;
}

static void test_callbacks(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *cb = sb_callback_new(count_call, NULL, count_destroy), *params = sb_dict_new(), *kept = NULL;
    sb_dict_set(params, "cb", cb);
    CHECK_STATUS(sb_register_action(m, "Giver", "give", give_back, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_perform(m, "Giver", "give", params, 0, &kept), SB_OK);
    sb_release(params);
    sb_release(cb);

    /* After the call that carried it returned, then twice more. */
    sb_value *arg = sb_int(5), *out = NULL;
    for (int i = 0; i < 2; i++) {
        CHECK_STATUS(sb_callback_call(kept, arg, &out), SB_OK);
        CHECK(check_int(out) == 5);
        sb_release(out);
    }
    /* From 8 threads at once. */
    pthread_t threads[8];
    for (int i = 0; i < 8; i++) CHECK(pthread_create(&threads[i], NULL, call_many, kept) == 0);
    for (int i = 0; i < 8; i++) {
        void *failed = NULL;
        pthread_join(threads[i], &failed);
        CHECK(failed == NULL);
    }
    CHECK(calls == 2 + 8 * 1000);
    /* After its mediator is gone: a C callback does not depend on one. */
    sb_mediator_free(m);
    CHECK_STATUS(sb_callback_call(kept, arg, &out), SB_OK);
    sb_release(out);
    CHECK(destroyed == 0);
    sb_release(kept);
    CHECK(destroyed == 1);
    sb_release(arg);
    robustness_row("C callback called twice, from 8 threads (8,000 calls), after its call returned, "
                   "after its mediator was freed", 4,
                   "every call answers; the destructor runs once, at the last release");
}

int main(int argc, char **argv) {
    plugin_dir = argc > 1 ? argv[1] : ".";
    self_path = argv[0];
    mkdir(plugin_dir, 0755);
    test_failing_actions();
    test_reentrancy();
    test_bad_plugins();
    test_callbacks();
    return check_report("faults");
}
