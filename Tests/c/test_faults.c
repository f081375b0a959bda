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
    *out = sb_value_retain((sb_value *)params);
    return SB_OK;
}

/* The mediator still answers a normal call. */
static int intact(sb_mediator *m) {
    sb_value *params = sb_dict_new(), *out = NULL;
    sb_dict_set_new(params, "ok", sb_int(7));
    int good = sb_action_register(m, "Healthy", "echo", echo, NULL, NULL) == SB_OK &&
               sb_action_perform(m, "Healthy", "echo", params, 0, &out) == SB_OK && sb_value_equal(out, params);
    sb_value_release(out);
    sb_value_release(params);
    return good;
}

/* --------------------------------------------------- wrapping the last error */

/* sb_error_set's arguments may point into the message it replaces: wrapping
 * sb_error_message() is the natural thing to do in C. Under valgrind and ASan a
 * read of the freed buffer fails the run; here the text must also be right. */
static void test_wrapped_error(void) {
    char expected[1024] = "", inner[700];
    memset(inner, 'x', sizeof inner - 1);
    inner[sizeof inner - 1] = '\0';
    int cases = 0;
    sb_error_set("%s", inner);
    snprintf(expected, sizeof expected, "%s", inner);
    for (int level = 0; level < 3; level++, cases++) { /* longer each time: the buffer must grow */
        char next[sizeof expected + 32];
        snprintf(next, sizeof next, "level %d: %s", level, expected);
        sb_error_set("level %d: %s", level, sb_error_message());
        CHECK(strcmp(sb_error_message(), next) == 0);
        memcpy(expected, next, strlen(next) + 1); /* 700 + 3 * 9 bytes fit */
    }
    sb_error_set("%s", "short"); /* shorter: formatted into the same buffer it reads */
    sb_error_set("%s and %s", sb_error_message(), sb_error_message());
    CHECK(strcmp(sb_error_message(), "short and short") == 0);
    cases++;
    sb_error_set("%s", sb_error_message() + 10); /* a tail of itself: "short" */
    CHECK(strcmp(sb_error_message(), "short") == 0);
    cases++;
    sb_error_set(sb_error_message()); /* the format itself is the old message */
    CHECK(strcmp(sb_error_message(), "short") == 0);
    cases++;
    robustness_row("sb_error_set given the message it replaces (wrapped, twice, a tail, as the format; "
                   "growing and shrinking)", cases, "the new message is right; nothing freed is read");
}

/* ------------------------------------------------------- failing actions */

static sb_status fail_with(void *u, const sb_value *params, sb_value **out) {
    (void)params;
    *out = sb_string("a result left behind"); /* must be released, not returned */
    sb_error_set("fault %d", (int)(intptr_t)u);
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
        CHECK_STATUS(sb_action_register(m, "Faulty", "act", fail_with, (void *)(intptr_t)s, NULL), SB_OK);
        sb_status expected = s >= SB_EINVAL && s <= SB_EQUEUED ? (sb_status)s : SB_EACTION;
        CHECK_STATUS(sb_action_perform(m, "Faulty", "act", NULL, 0, &out), expected);
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
    if (strcmp(entry, "perform") == 0) return sb_action_perform(deep_m, "Deep", "perform", NULL, 0, out);
    if (strcmp(entry, "route") == 0) return sb_route_call(deep_route, NULL, out);
    return sb_url_open(deep_m, "app://Deep/url", NULL, out);
}

static sb_status run_deep(const char *entry, int stop) {
    sb_value *out = NULL;
    deepest = 0;
    stop_at = stop;
    sb_status s = strcmp(entry, "route") == 0 ? sb_route_call(deep_route, NULL, &out)
                                              : sb_action_perform(deep_m, "Deep", entry, NULL, 0, &out);
    if (s == SB_OK) CHECK(check_int(out) == stop);
    else CHECK(out == NULL);
    sb_value_release(out);
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
        CHECK_STATUS(sb_action_register(deep_m, "Deep", entries[i], recurse, (void *)entries[i], NULL), SB_OK);
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
    robustness_row("Re-entrant perform without end (sb_action_perform, sb_route_call, sb_url_open; a 256 KiB thread)", 4,
                   "SB_EREJECTED \"call depth limit\" at call 1001 (sooner on a small stack); all levels unwind");
}

/* ------------------------------- user code re-entering through the hooks */

static sb_mediator *hook_m;
static sb_value *self_callback, *self_completion;
static long observed, url_observed, callback_runs, completions, degrades, intercepts;

/* Performs a call on every event it is told of. */
static void performing_observer(void *u, const sb_call_event *event) {
    (void)u;
    (void)event;
    observed++;
    sb_value *out = NULL;
    (void)sb_action_perform(hook_m, "Healthy", "echo", NULL, 0, &out);
    sb_value_release(out);
}

static sb_status performs_healthy(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    return sb_action_perform(hook_m, "Healthy", "echo", params, 0, out);
}

/* Opens a URL the policy refuses, which tells this observer again. */
static sb_status reopening_observer(void *u, const sb_value *args, sb_value **out) {
    (void)u;
    (void)args;
    url_observed++;
    sb_value *ignored = NULL;
    (void)sb_url_open(hook_m, "refused://Healthy/echo", NULL, &ignored);
    sb_value_release(ignored);
    *out = sb_null();
    return SB_OK;
}

/* Calls itself through sb_callback_call alone. */
static sb_status self_calling(void *u, const sb_value *args, sb_value **out) {
    (void)u;
    callback_runs++;
    return sb_callback_call(self_callback, args, out);
}

/* A completion that opens the URL again, with itself as the completion. */
static sb_status reopening_completion(void *u, const sb_value *args, sb_value **out) {
    (void)u;
    (void)args;
    completions++;
    (void)sb_url_open(hook_m, "app://Healthy/echo", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .completion = self_completion}, NULL);
    *out = sb_null();
    return SB_OK;
}

/* A degrade handler that performs a call nothing answers. */
static sb_status degrading(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    (void)params;
    degrades++;
    return sb_action_perform(hook_m, "Nobody", "nothing", NULL, 0, out);
}

/* An interceptor that performs a call, which it intercepts again. */
static int intercepting(void *u, sb_call *call) {
    (void)u;
    (void)call;
    intercepts++;
    sb_value *out = NULL;
    sb_status s = sb_action_perform(hook_m, "Healthy", "echo", NULL, 0, &out);
    sb_value_release(out);
    return s == SB_OK ? SB_OK : s;
}

static void test_hook_reentrancy(void) {
    sb_value *out = NULL;
    uint64_t id = 0;
    hook_m = sb_mediator_new();
    CHECK(intact(hook_m)); /* registers Healthy.echo */

    /* An observer that performs on every event: it sees the caller's call,
     * not its own (which would each start two more), and the calls an
     * action makes are still shown. Before: a stack overflow. */
    CHECK_STATUS(sb_observer_add(hook_m, performing_observer, NULL, NULL, &id), SB_OK);
    CHECK_STATUS(sb_action_perform(hook_m, "Healthy", "echo", NULL, 0, &out), SB_OK);
    sb_value_release(out);
    out = NULL;
    CHECK(observed == 2);
    CHECK_STATUS(sb_action_register(hook_m, "Outer", "run", performs_healthy, NULL, NULL), SB_OK);
    observed = 0;
    CHECK_STATUS(sb_action_perform(hook_m, "Outer", "run", NULL, 0, &out), SB_OK);
    sb_value_release(out);
    out = NULL;
    CHECK(observed == 4);
    CHECK_STATUS(sb_observer_remove(hook_m, id), SB_OK);
    CHECK(intact(hook_m));

    /* A URL observer that opens a refused URL: one level deeper each time,
     * refused at the depth limit. Before: a stack overflow. */
    sb_value *policy = NULL;
    CHECK_STATUS(sb_json_decode("{\"schemes\": [\"app\"]}", &policy), SB_OK);
    CHECK_STATUS(sb_url_set_policy(hook_m, policy), SB_OK);
    sb_value_release(policy);
    CHECK_STATUS(sb_url_set_observer(hook_m, reopening_observer, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_open(hook_m, "refused://Healthy/echo", NULL, &out), SB_EREJECTED);
    CHECK(url_observed == SB_MAX_CALL_DEPTH);
    CHECK_STATUS(sb_url_set_observer(hook_m, NULL, NULL, NULL), SB_OK);
    CHECK(intact(hook_m));

    /* A callback that calls itself: refused at the limit. Before: a stack overflow. */
    self_callback = sb_callback_new(self_calling, NULL, NULL);
    CHECK_STATUS(sb_callback_call(self_callback, NULL, &out), SB_EREJECTED);
    CHECK(out == NULL && ERROR_MENTIONS("call depth limit") && callback_runs == SB_MAX_CALL_DEPTH);
    sb_value_release(self_callback);

    /* A URL completion that opens the URL again. Before: a stack overflow. */
    self_completion = sb_callback_new(reopening_completion, NULL, NULL);
    CHECK_STATUS(sb_url_open(hook_m, "app://Healthy/echo", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .completion = self_completion}, NULL), SB_OK);
    CHECK(completions == SB_MAX_CALL_DEPTH);
    sb_value_release(self_completion);
    CHECK(intact(hook_m));

    /* A degrade handler and an interceptor that re-enter: the same limit. */
    CHECK_STATUS(sb_degrade_handler_set(hook_m, degrading, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(hook_m, "Nobody", "nothing", NULL, 0, &out), SB_EREJECTED);
    CHECK(ERROR_MENTIONS("call depth limit") && degrades == SB_MAX_CALL_DEPTH);
    CHECK_STATUS(sb_degrade_handler_set(hook_m, NULL, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_interceptor_add(hook_m, 0, intercepting, NULL, NULL, &id), SB_OK);
    CHECK_STATUS(sb_action_perform(hook_m, "Healthy", "echo", NULL, 0, &out), SB_EREJECTED);
    CHECK(intercepts == SB_MAX_CALL_DEPTH);
    CHECK_STATUS(sb_interceptor_remove(hook_m, id), SB_OK);
    CHECK(intact(hook_m));
    sb_mediator_free(hook_m);
    robustness_row("User code re-entering without end through an observer, the URL observer, a callback, "
                   "a URL completion, the degrade handler, an interceptor", 6,
                   "each counts against SB_MAX_CALL_DEPTH (SB_EREJECTED at the limit; a call an observer "
                   "makes is not observed); no stack overflow");
}

/* --------------------------------- a discoverer asked for what it performs */

static long discoveries, loops_reported;
static const char *performed_target; /* NULL: the name it is asked for */

/* Performs the target it is asked for (or a fixed one). Past 10,000 asks it
 * stops performing, so that the unbounded case ends and fails the count. */
static sb_status performing_discoverer(void *u, sb_mediator *m, const char *target) {
    (void)u;
    if (++discoveries > 10000) return SB_ENOTARGET;
    sb_value *out = NULL;
    if (sb_action_perform(m, performed_target != NULL ? performed_target : target, "act", NULL, 0, &out) == SB_EREJECTED &&
        ERROR_MENTIONS("discovery loop"))
        loops_reported++;
    sb_value_release(out);
    return SB_ENOTARGET;
}

static void test_discoverer_reentrancy(void) {
    const char *performed[] = {NULL, "Elsewhere"};
    for (int i = 0; i < 2; i++) {
        sb_mediator *m = sb_mediator_new();
        uint64_t id = 0;
        sb_value *out = NULL;
        CHECK_STATUS(sb_discoverer_add(m, performing_discoverer, NULL, NULL, &id), SB_OK);
        discoveries = 0;
        performed_target = performed[i];
        CHECK_STATUS(sb_action_perform(m, "Elsewhere", "act", NULL, 0, &out), SB_ENOTARGET);
        /* Asked for Elsewhere, then for NoTargetAction (the fallback), and
         * once more for Elsewhere from inside that: never the same name
         * twice at once on one thread. Before: exponential (capped here). */
        CHECK(discoveries >= 2 && discoveries <= 3);
        /* What the nested calls got: a discovery loop, named. */
        CHECK(loops_reported >= 2);
        loops_reported = discoveries = 0;
        CHECK_STATUS(sb_action_perform(m, "Elsewhere", "act", NULL, 0, &out), SB_ENOTARGET);
        CHECK(discoveries >= 2 && discoveries <= 3 && loops_reported >= 2);
        loops_reported = 0;
        CHECK(intact(m));
        sb_mediator_free(m);
    }
    robustness_row("Discoverer that performs the target it is asked for (or another missing one)", 2,
                   "that search is not started again on the thread: the nested call fails with SB_EREJECTED "
                   "\"discovery loop\"; at most 3 discoverer calls");
}

/* A discoverer asked for a name performs a fresh one (the name and "x"),
 * down to a length: a chain of K searches. Each level's fallback asks for
 * NoTargetAction, whose search starts a chain of its own; asked again at
 * every level, that was K² discoverer calls (8,800 at K = 100). */
static long fresh_calls;
static sb_status fresh_discoverer(void *u, sb_mediator *m, const char *target) {
    (void)u;
    fresh_calls++;
    char next[256];
    if (strlen(target) >= 100) return SB_ENOTARGET;
    snprintf(next, sizeof next, "%sx", target);
    sb_value *out = NULL;
    (void)sb_action_perform(m, next, "go", NULL, 0, &out);
    sb_value_release(out);
    return SB_ENOTARGET;
}

static void test_discovery_does_not_multiply(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    CHECK_STATUS(sb_discoverer_add(m, fresh_discoverer, NULL, NULL, NULL), SB_OK);
    fresh_calls = 0;
    CHECK_STATUS(sb_action_perform(m, "T", "go", NULL, 0, &out), SB_ENOTARGET);
    /* Each name searched once while the outermost search runs: the T chain
     * and the NoTargetAction chain, about 100 names each. */
    CHECK(fresh_calls > 100 && fresh_calls <= 400);
    CHECK(intact(m));
    sb_mediator_free(m);
    robustness_row("Discoverer that performs a fresh name at each level (a chain of 100 searches)", 1,
                   "a name searched in vain is not searched again until the outermost search ends: "
                   "discoverer calls grow with the chain, not its square");
}

/* A call nothing answers asks each discoverer once for the target and once
 * for NoTargetAction, whether it came from sb_action_perform or from a URL
 * (plain or not). A URL call looked NoTargetAction up to admit it, then
 * again to call it: two searches for the same name (a Lua state stats its
 * Target_NoTargetAction.lua files twice). */
static long asked_target, asked_fallback;
static sb_status counting_discoverer(void *u, sb_mediator *m, const char *target) {
    (void)u;
    (void)m;
    if (strcmp(target, "NoTargetAction") == 0) asked_fallback++;
    else asked_target++;
    return SB_ENOTARGET;
}

static void test_url_fallback_searched_once(void) {
    const char *urls[] = {"app://Nobody/act", "app://Nobody/act?k=1&k=2", NULL};
    for (int i = 0; i < 3; i++) {
        sb_mediator *m = sb_mediator_new();
        sb_value *out = NULL;
        CHECK_STATUS(sb_discoverer_add(m, counting_discoverer, NULL, NULL, NULL), SB_OK);
        asked_target = asked_fallback = 0;
        if (urls[i] == NULL) CHECK_STATUS(sb_action_perform(m, "Nobody", "act", NULL, 0, &out), SB_ENOTARGET);
        else CHECK_STATUS(sb_url_open(m, urls[i], NULL, &out), SB_ENOTARGET);
        CHECK(asked_target == 1);
        CHECK(asked_fallback == 1);
        sb_value_release(out);
        sb_mediator_free(m);
    }
    robustness_row("URL call nothing answers, with a discoverer", 3,
                   "the discoverer is asked once for the target and once for NoTargetAction, as for a "
                   "perform (it was asked twice for NoTargetAction)");
}

/* Interceptors and observers are bounded (each change copies the list, so
 * n unbounded adds would cost n²): past SB_MAX_HOOKS the add fails, and its
 * userdata is released at once. */
static int hooks_freed;
static void count_hook_free(void *p) {
    (void)p;
    hooks_freed++;
}
static int pass_interceptor(void *u, sb_call *call) {
    (void)u;
    return sb_call_proceed(call);
}
static void watch(void *u, const sb_call_event *event) {
    (void)u;
    (void)event;
}

static void test_hook_bound(void) {
    sb_mediator *m = sb_mediator_new();
    int added = 0;
    for (int i = 0; i < SB_MAX_HOOKS; i++) {
        added += sb_interceptor_add(m, 0, pass_interceptor, NULL, NULL, NULL) == SB_OK;
        added += sb_observer_add(m, watch, NULL, NULL, NULL) == SB_OK;
    }
    CHECK(added == 2 * SB_MAX_HOOKS);
    hooks_freed = 0;
    uint64_t id = 0;
    CHECK_STATUS(sb_interceptor_add(m, 0, pass_interceptor, NULL, count_hook_free, &id), SB_EREJECTED);
    CHECK(ERROR_MENTIONS("1024 interceptors") && hooks_freed == 1);
    CHECK_STATUS(sb_observer_add(m, watch, NULL, count_hook_free, &id), SB_EREJECTED);
    CHECK(ERROR_MENTIONS("1024 observers") && hooks_freed == 2);
    CHECK(intact(m));
    sb_mediator_free(m);
    robustness_row("Interceptors and observers added past SB_MAX_HOOKS (1,024 each)", 2,
                   "SB_EREJECTED naming the limit; the userdata released at once; calls still answer");
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
        CHECK_STATUS(sb_plugin_load(m, path), SB_EINVAL);
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
    CHECK_STATUS(sb_action_perform(m, "Tiny", "anything", NULL, 0, &(sb_value *){NULL}), SB_ENOTARGET);
    CHECK_STATUS(sb_action_perform(m, "Small", "noop", NULL, 0, &(sb_value *){NULL}), SB_ENOTARGET);
    /* Nothing of the refused plugins was registered (Target_Broken's tables). */
    sb_value *result = NULL;
    CHECK_STATUS(sb_action_perform(m, "Broken", "anything", NULL, 0, &result), SB_ENOTARGET);
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
    *out = sb_value_retain((sb_value *)args);
    return SB_OK;
}
static void count_destroy(void *u) {
    (void)u;
    destroyed++;
}

/* An action that hands its callback back (C keeps it past the call). */
static sb_status give_back(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    *out = sb_value_retain(sb_dict_get(params, "cb"));
    return SB_OK;
}

static void *call_many(void *cb) {
    for (int i = 0; i < 1000; i++) {
        sb_value *out = NULL;
        if (sb_callback_call(cb, NULL, &out) != SB_OK) return (void *)1;
        sb_value_release(out);
    }
    return NULL;
}

static void test_callbacks(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *cb = sb_callback_new(count_call, NULL, count_destroy), *params = sb_dict_new(), *kept = NULL;
    sb_dict_set(params, "cb", cb);
    CHECK_STATUS(sb_action_register(m, "Giver", "give", give_back, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "Giver", "give", params, 0, &kept), SB_OK);
    sb_value_release(params);
    sb_value_release(cb);

    /* After the call that carried it returned, then twice more. */
    sb_value *arg = sb_int(5), *out = NULL;
    for (int i = 0; i < 2; i++) {
        CHECK_STATUS(sb_callback_call(kept, arg, &out), SB_OK);
        CHECK(check_int(out) == 5);
        sb_value_release(out);
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
    sb_value_release(out);
    CHECK(destroyed == 0);
    sb_value_release(kept);
    CHECK(destroyed == 1);
    sb_value_release(arg);
    robustness_row("C callback called twice, from 8 threads (8,000 calls), after its call returned, "
                   "after its mediator was freed", 4,
                   "every call answers; the destructor runs once, at the last release");
}

int main(int argc, char **argv) {
    plugin_dir = argc > 1 ? argv[1] : ".";
    self_path = argv[0];
    mkdir(plugin_dir, 0755);
    test_wrapped_error();
    test_failing_actions();
    test_reentrancy();
    test_hook_reentrancy();
    test_discoverer_reentrancy();
    test_discovery_does_not_multiply();
    test_url_fallback_searched_once();
    test_hook_bound();
    test_bad_plugins();
    test_callbacks();
    return check_report("faults");
}
