/* A caller that does not wait (sb_action_perform_async) and an interceptor
 * that decides later (SB_INTERCEPT_PENDING): the call returns SB_PENDING at
 * once, holding no thread, and the rest of it (later interceptors, the
 * action, `done`) runs on the thread that decides; the interceptor's
 * timeout, a cancellation and the observers' end event hold as for a
 * caller that waits (issue 40). */
#include "check.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Calls to the action, counted (several threads). */
static int reached;

/* Answers its params. */
static sb_status echo(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    __atomic_add_fetch(&reached, 1, __ATOMIC_SEQ_CST);
    *out = sb_value_retain((sb_value *)params);
    return SB_OK;
}

/* Calls the interceptors below keep, to decide later. */
#define KEPT_MAX 200
static sb_call *kept[KEPT_MAX];
static int kept_count;

static int keep_every(void *u, sb_call *call) {
    (void)u;
    int n = __atomic_load_n(&kept_count, __ATOMIC_SEQ_CST);
    if (n < KEPT_MAX) {
        kept[n] = call;
        __atomic_store_n(&kept_count, n + 1, __ATOMIC_SEQ_CST);
    }
    return SB_INTERCEPT_PENDING;
}

/* Keeps the calls to an action "echo"; lets the others go on. */
static int keep_call(void *u, sb_call *call) {
    return strcmp(sb_call_action(call), "echo") == 0 ? keep_every(u, call) : SB_OK;
}

/* A second interceptor, after the first: counts the calls it sees. */
static int later_seen;
static int count_later(void *u, sb_call *call) {
    (void)u;
    (void)call;
    __atomic_add_fetch(&later_seen, 1, __ATOMIC_SEQ_CST);
    return SB_OK;
}

/* What `done` got, for each call (userdata: its slot). */
typedef struct answer {
    int ran;
    sb_status status;
    int64_t i;           /* the params' "i", for SB_OK */
    char message[160];
    pthread_t thread;
} answer;

static void record_done(void *userdata, sb_status status, sb_value *result) {
    answer *a = userdata;
    a->status = status;
    a->i = status == SB_OK ? check_int(sb_dict_get(result, "i")) : -1;
    if (status != SB_OK) snprintf(a->message, sizeof a->message, "%s", sb_error_message());
    a->thread = pthread_self();
    sb_value_release(result);
    __atomic_store_n(&a->ran, 1, __ATOMIC_SEQ_CST);
}

static int wait_ran(answer *a) {
    for (int i = 0; i < 5000 && !__atomic_load_n(&a->ran, __ATOMIC_SEQ_CST); i++) sleep_ms(1);
    return __atomic_load_n(&a->ran, __ATOMIC_SEQ_CST);
}

static sb_status call_async(sb_mediator *m, int64_t i, const sb_call_options *options, answer *a) {
    sb_value *params = sb_dict_new();
    sb_dict_set_new(params, "i", sb_int(i));
    memset(a, 0, sizeof *a);
    sb_status status = sb_action_perform_async(m, "T", "echo", params, options, record_done, a);
    sb_value_release(params);
    return status;
}

/* A mediator with T.echo and one interceptor `fn`, named `name`, whose
 * decisions are awaited `timeout_ms`. */
static sb_mediator *keeping(sb_interceptor_fn fn, const char *name, unsigned timeout_ms) {
    sb_mediator *m = sb_mediator_new();
    uint64_t id = 0;
    CHECK_STATUS(sb_action_register(m, "T", "echo", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_interceptor_add(m, 0, fn, NULL, NULL, &id), SB_OK);
    CHECK_STATUS(sb_interceptor_set_options(m, id, name, timeout_ms), SB_OK);
    reached = kept_count = 0;
    return m;
}

/* Decides every kept call, last first: proceed (even i), or redirect to
 * T.other (odd i). */
static void *decide_kept(void *arg) {
    (void)arg;
    for (int i = kept_count - 1; i >= 0; i--) {
        if (i % 2 == 0) {
            (void)sb_call_proceed(kept[i]);
        } else {
            (void)sb_call_redirect(kept[i], "T", "other", NULL);
        }
    }
    return NULL;
}

static void test_decided_on_another_thread(void) {
    sb_mediator *m = sb_mediator_new();
    uint64_t id = 0;
    static answer answers[KEPT_MAX];
    CHECK_STATUS(sb_action_register(m, "T", "echo", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "T", "other", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_interceptor_add(m, 10, keep_call, NULL, NULL, &id), SB_OK);
    CHECK_STATUS(sb_interceptor_set_options(m, id, "keeper", 60000), SB_OK);
    CHECK_STATUS(sb_interceptor_add(m, 0, count_later, NULL, NULL, NULL), SB_OK);
    reached = later_seen = kept_count = 0;

    /* Every call returns at once, pending, with nothing run past the first interceptor. */
    int pending = 0;
    for (int i = 0; i < KEPT_MAX; i++) pending += call_async(m, i, NULL, &answers[i]) == SB_PENDING;
    CHECK(pending == KEPT_MAX);
    CHECK(kept_count == KEPT_MAX && reached == 0 && later_seen == 0);
    int ran_early = 0;
    for (int i = 0; i < KEPT_MAX; i++) ran_early += answers[i].ran;
    CHECK(ran_early == 0);

    /* Decided on another thread: the rest of each call, and its `done`, run there. */
    pthread_t decider;
    CHECK(pthread_create(&decider, NULL, decide_kept, NULL) == 0);
    CHECK(pthread_join(decider, NULL) == 0);
    int right = 0, there = 0;
    for (int i = 0; i < KEPT_MAX; i++) {
        right += answers[i].ran && answers[i].status == SB_OK && answers[i].i == i;
        there += pthread_equal(answers[i].thread, decider) != 0;
    }
    CHECK(right == KEPT_MAX);
    CHECK(there == KEPT_MAX);
    CHECK(reached == KEPT_MAX && later_seen == KEPT_MAX);
    sb_mediator_free(m);
}

/* The interceptor's timeout, a late decision, and a cancellation. */
static void test_timeout_and_cancel(void) {
    sb_mediator *m = keeping(keep_call, "slow", 20);
    answer a;
    CHECK_STATUS(call_async(m, 1, NULL, &a), SB_PENDING);
    CHECK(wait_ran(&a));
    CHECK(a.status == SB_ETIMEOUT && strstr(a.message, "interceptor \"slow\" did not decide within 20 ms") != NULL);
    CHECK(!pthread_equal(a.thread, pthread_self())); /* the library's watch thread */
    CHECK_STATUS(sb_call_proceed(kept[0]), SB_ETIMEOUT);
    CHECK(reached == 0);

    /* Cancelled while it waits for the decision: done at once, on the cancelling thread. */
    sb_mediator_free(m);
    m = keeping(keep_call, "slow", 60000);
    sb_cancellation *token = sb_cancellation_new();
    sb_call_options options = SB_CALL_OPTIONS_INIT;
    options.cancel = token;
    kept_count = 0;
    CHECK_STATUS(call_async(m, 2, &options, &a), SB_PENDING);
    CHECK(!a.ran);
    sb_cancellation_request(token);
    CHECK(a.ran && a.status == SB_ECANCELED && pthread_equal(a.thread, pthread_self()));
    CHECK(sb_call_proceed(kept[0]) != SB_OK);
    CHECK(reached == 0);

    /* The call's own timeout, shorter than the interceptor's. */
    options.cancel = NULL;
    options.timeout_ms = 20;
    kept_count = 0;
    CHECK_STATUS(call_async(m, 3, &options, &a), SB_PENDING);
    CHECK(wait_ran(&a));
    CHECK(a.status == SB_ETIMEOUT);
    (void)sb_call_proceed(kept[0]); /* too late: nothing runs */
    CHECK(reached == 0);
    sb_cancellation_free(token);
    sb_mediator_free(m);
}

/* The end event tells of the call as it ended: redirected after it left
 * its thread. */
static char end_target[64], end_action[64];
static int ends;
static void note_end(void *u, const sb_call_event *e) {
    (void)u;
    if (e->phase != SB_CALL_END) return;
    snprintf(end_target, sizeof end_target, "%s", e->target ? e->target : "");
    snprintf(end_action, sizeof end_action, "%s", e->action ? e->action : "");
    ends++;
}

static void test_end_event(void) {
    sb_mediator *m = sb_mediator_new();
    answer a;
    CHECK_STATUS(sb_action_register(m, "T", "echo", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "T", "other", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_interceptor_add(m, 0, keep_every, NULL, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_observer_add(m, note_end, NULL, NULL, NULL), SB_OK);
    kept_count = ends = 0;
    CHECK_STATUS(call_async(m, 5, NULL, &a), SB_PENDING);
    CHECK(ends == 0);
    CHECK_STATUS(sb_call_redirect(kept[0], "T", "other", NULL), SB_OK);
    /* The redirected call meets the interceptor again, and leaves again. */
    CHECK(kept_count == 2 && !a.ran);
    CHECK_STATUS(sb_call_proceed(kept[1]), SB_OK);
    CHECK(a.ran && a.status == SB_OK && a.i == 5);
    CHECK(ends == 1);
    CHECK_STR(end_target, "T");
    CHECK_STR(end_action, "other");
    sb_mediator_free(m);
}

/* A caller that waits still waits, on its own thread (the decision from another). */
static void *proceed_soon(void *arg) {
    (void)arg;
    while (__atomic_load_n(&kept_count, __ATOMIC_SEQ_CST) == 0) sleep_ms(1);
    sleep_ms(5);
    (void)sb_call_proceed(kept[0]);
    return NULL;
}

static void test_caller_that_waits(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_register(m, "T", "echo", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_interceptor_add(m, 0, keep_call, NULL, NULL, NULL), SB_OK);
    __atomic_store_n(&kept_count, 0, __ATOMIC_SEQ_CST);
    reached = 0;
    pthread_t decider;
    CHECK(pthread_create(&decider, NULL, proceed_soon, NULL) == 0);
    CHECK_STATUS(sb_action_perform(m, "T", "echo", NULL, 0, &out), SB_OK);
    CHECK(pthread_join(decider, NULL) == 0);
    CHECK(reached == 1);
    sb_value_release(out);
    sb_mediator_free(m);
}

/* sb_call_caller_waits, as the interceptor function sees it. */
static int waits_seen = -2;
static sb_call *last_shown;
static int note_waits(void *u, sb_call *call) {
    (void)u;
    waits_seen = sb_call_caller_waits(call);
    last_shown = call;
    return SB_OK;
}

static void test_caller_waits(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    answer a;
    uint64_t id = 0;
    CHECK_STATUS(sb_action_register(m, "T", "echo", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_interceptor_add(m, 0, note_waits, NULL, NULL, &id), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "T", "echo", NULL, 0, &out), SB_OK);
    CHECK(waits_seen == 1);
    sb_value_release(out);
    CHECK_STATUS(call_async(m, 1, NULL, &a), SB_OK); /* the action answered at once */
    CHECK(waits_seen == 0 && a.ran && a.status == SB_OK);
    CHECK_STATUS(sb_url_open(m, "app://T/echo", NULL, &out), SB_OK);
    CHECK(waits_seen == 1);
    sb_value_release(out);
    CHECK(sb_call_caller_waits(NULL) == 1);
    CHECK(sb_call_caller_waits(last_shown) == 1); /* no longer open: its call ended */
    CHECK_STATUS(sb_interceptor_remove(m, id), SB_OK);
    sb_mediator_free(m);
}

/* The number under `key` of the routes() entry of interceptor `name`. */
static int64_t routes_count(sb_mediator *m, const char *name, const char *key) {
    sb_value *routes = NULL;
    int64_t n = -1;
    if (sb_routes(m, &routes) != SB_OK) return -1;
    const sb_value *list = sb_dict_get(routes, "interceptors");
    for (size_t i = 0; i < sb_value_count(list); i++) {
        const sb_value *entry = sb_array_get(list, i);
        const char *entry_name = sb_value_get_string(sb_dict_get(entry, "name"), NULL);
        if (entry_name != NULL && strcmp(entry_name, name) == 0) n = check_int(sb_dict_get(entry, key));
    }
    sb_value_release(routes);
    return n;
}

/* A caller that stopped waiting (its own timeout, its queue freed) lets the
 * interceptor know: a later decision is ignored, said and counted, as one
 * after the interceptor's timeout (a hostile review found them accepted,
 * with SB_OK, and nothing run). */
static void test_caller_gave_up(void) {
    sb_mediator *m = keeping(keep_every, "patient", 60000);
    answer a;
    sb_call_options options = SB_CALL_OPTIONS_INIT;
    options.timeout_ms = 5;
    CHECK_STATUS(call_async(m, 1, &options, &a), SB_PENDING);
    CHECK(wait_ran(&a) && a.status == SB_ETIMEOUT);
    CHECK(sb_call_cancelled(kept[0]) == 0);
    CHECK_STATUS(sb_call_proceed(kept[0]), SB_ETIMEOUT);
    CHECK(reached == 0 && routes_count(m, "patient", "ignored_decisions") == 1);

    /* Its queue freed: cancelled. */
    sb_queue *q = NULL;
    CHECK_STATUS(sb_queue_new(&q), SB_OK);
    options.timeout_ms = 0;
    options.queue = q;
    kept_count = 0;
    CHECK_STATUS(call_async(m, 2, &options, &a), SB_PENDING);
    sb_queue_free(q);
    CHECK(a.ran && a.status == SB_ECANCELED);
    CHECK(sb_call_cancelled(kept[0]) == 1);
    CHECK_STATUS(sb_call_proceed(kept[0]), SB_ECANCELED);
    CHECK(reached == 0 && routes_count(m, "patient", "ignored_decisions") == 2);
    sb_mediator_free(m);
}

/* Freeing the mediator ends the calls that wait for a decision: `done` runs
 * inside sb_mediator_free with SB_ECANCELED, the targets' destructors run
 * there, and a later decision runs nothing (a hostile review found the free doing nothing
 * and a later decision running actions of the freed mediator). */
static int destroyed;
static void count_destroyed(void *u) {
    (void)u;
    destroyed++;
}

static void test_mediator_freed(void) {
    sb_mediator *m = sb_mediator_new();
    answer answers[3];
    CHECK_STATUS(sb_action_register(m, "T", "echo", echo, NULL, count_destroyed), SB_OK);
    CHECK_STATUS(sb_interceptor_add(m, 0, keep_every, NULL, count_destroyed, NULL), SB_OK);
    reached = kept_count = destroyed = 0;
    for (int i = 0; i < 3; i++) CHECK_STATUS(call_async(m, i, NULL, &answers[i]), SB_PENDING);
    CHECK(kept_count == 3 && !answers[0].ran);
    sb_mediator_free(m);
    int cancelled = 0;
    for (int i = 0; i < 3; i++) cancelled += answers[i].ran && answers[i].status == SB_ECANCELED;
    CHECK(cancelled == 3);
    CHECK(strstr(answers[0].message, "its mediator was freed") != NULL);
    CHECK(destroyed == 1); /* the action's userdata */
    /* The handles stay open until decided (switchboard.h): the decisions are
     * refused, and the interceptor's userdata goes with the last. */
    int refused = 0;
    for (int i = 0; i < 3; i++) refused += sb_call_proceed(kept[i]) == SB_ECANCELED;
    CHECK(refused == 3 && destroyed == 2);
    CHECK(reached == 0);
}

/* A call that suspends once the free has begun (made by a `done` the free
 * runs; a decision racing the free does the same) ends at once too (a
 * second hostile review found such calls outliving the free). */
static sb_mediator *being_freed;
static answer first, second;
static void done_then_call_again(void *userdata, sb_status status, sb_value *result) {
    record_done(userdata, status, result);
    (void)call_async(being_freed, 2, NULL, &second);
}

static void test_suspended_during_the_free(void) {
    being_freed = keeping(keep_every, "k", 60000);
    sb_value *params = sb_dict_new();
    memset(&first, 0, sizeof first);
    memset(&second, 0, sizeof second);
    CHECK_STATUS(sb_action_perform_async(being_freed, "T", "echo", params, NULL, done_then_call_again, &first),
                 SB_PENDING);
    sb_value_release(params);
    sb_mediator_free(being_freed);
    CHECK(first.ran && first.status == SB_ECANCELED);
    CHECK(second.ran && second.status == SB_ECANCELED && strstr(second.message, "its mediator was freed") != NULL);
    CHECK(kept_count == 2 && reached == 0);
    for (int i = 0; i < kept_count; i++) CHECK(sb_call_proceed(kept[i]) == SB_ECANCELED);
    CHECK(reached == 0);
}

/* Decisions made by actions, each resuming the next call inside the last,
 * on a thread with a small stack: refused at the stack's reserve, never a
 * crash (a hostile review found a chain overflowing 128 KiB: a resumed
 * call's levels are deeper than a plain call's). */
#define CHAIN 400
static sb_call *chain_kept[CHAIN];
static int chain_count;
static int keep_chain(void *u, sb_call *call) {
    (void)u;
    if (chain_count < CHAIN) chain_kept[chain_count++] = call;
    return SB_INTERCEPT_PENDING;
}
static sb_status decide_next(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    int64_t k = check_int(sb_dict_get(params, "i"));
    if (k + 1 < CHAIN) (void)sb_call_proceed(chain_kept[k + 1]);
    *out = sb_int(k);
    return SB_OK;
}
static answer chain_answers[CHAIN];
static void *start_chain(void *arg) {
    (void)arg;
    (void)sb_call_proceed(chain_kept[0]);
    return NULL;
}

static void test_chain_on_a_small_stack(void) {
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(m, "T", "echo", decide_next, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_interceptor_add(m, 0, keep_chain, NULL, NULL, NULL), SB_OK);
    for (int i = 0; i < CHAIN; i++) CHECK_STATUS(call_async(m, i, NULL, &chain_answers[i]), SB_PENDING);
    CHECK(chain_count == CHAIN);
    pthread_attr_t attr;
    pthread_t thread;
    CHECK(pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, 128 * 1024) == 0);
    CHECK(pthread_create(&thread, &attr, start_chain, NULL) == 0);
    CHECK(pthread_join(thread, NULL) == 0);
    pthread_attr_destroy(&attr);
    int ok = 0, refused = 0, open = 0;
    for (int i = 0; i < CHAIN; i++) {
        if (!chain_answers[i].ran) {
            open++;
        } else if (chain_answers[i].status == SB_OK) {
            ok++;
        } else if (chain_answers[i].status == SB_EREJECTED &&
                   strstr(chain_answers[i].message, "stack is nearly used up") != NULL) {
            refused++;
        }
    }
    CHECK(ok > 0 && refused == 1 && ok + refused + open == CHAIN);
    sb_mediator_free(m); /* the calls the chain never reached end here */
    int ended = 0;
    for (int i = 0; i < CHAIN; i++) ended += chain_answers[i].ran;
    CHECK(ended == CHAIN);
}

int main(void) {
    test_caller_waits();
    test_decided_on_another_thread();
    test_timeout_and_cancel();
    test_end_event();
    test_caller_that_waits();
    test_caller_gave_up();
    test_mediator_freed();
    test_suspended_during_the_free();
    test_chain_on_a_small_stack();
    return check_report("async_interceptors");
}
