/* Asynchronous actions from C (issue 21): an action takes its completion,
 * returns SB_PENDING, and another thread completes it. The caller waits for
 * it, up to its timeout, until it is cancelled; a completion is accepted
 * exactly once; what the action uses stays alive until it completes. */
#include "check.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static sb_status plain(void *ud, const sb_value *params, sb_value **out);

/* What a completion kept is let go by a later thread entering the library:
 * enter it (register, free) until *counter is set, for at most 2 s. */
static void enter_until(int *counter) {
    for (int i = 0; i < 2000 && *counter == 0; i++) {
        sb_mediator *other = sb_mediator_new();
        sb_action_register(other, "X", "y", plain, NULL, NULL);
        sb_mediator_free(other);
        sleep_ms(1);
    }
}

static void enter_until_at_least(int *counter, int wanted) {
    for (int i = 0; i < 2000 && *counter < wanted; i++) {
        sb_mediator *other = sb_mediator_new();
        sb_mediator_free(other);
        sleep_ms(1);
    }
}

/* ---------------------------------------------- completing from a thread */

struct later {
    sb_completion c;
    long delay_ms;
    int64_t value;      /* answers sb_int(value) ... */
    sb_status fail;     /* ... unless this is not SB_OK */
    sb_status returned; /* what the completion call returned */
    int owned;          /* freed by the thread that completes it */
};

static pthread_mutex_t done_mu = PTHREAD_MUTEX_INITIALIZER;
static long done_count;

static void *complete_later(void *arg) {
    struct later *l = arg;
    sleep_ms(l->delay_ms);
    l->returned = l->fail == SB_OK ? sb_completion_succeed(l->c, sb_int(l->value))
                                   : sb_completion_fail(l->c, l->fail, "it broke later");
    if (l->owned) free(l);
    pthread_mutex_lock(&done_mu);
    done_count++;
    pthread_mutex_unlock(&done_mu);
    return NULL;
}

/* The action's userdata: how to answer, and the thread that will. */
struct deferring {
    long delay_ms;
    sb_status fail;
    pthread_t worker;
    struct later later;
    int started;
    int freed;
};

static sb_status deferred(void *ud, const sb_value *params, sb_value **out) {
    struct deferring *d = ud;
    (void)out;
    int64_t n = 0;
    sb_value_get_int(sb_dict_get(params, "n"), &n);
    d->later.c = sb_completion_take();
    d->later.delay_ms = d->delay_ms;
    d->later.value = n * 2;
    d->later.fail = d->fail;
    d->later.returned = (sb_status)-1;
    d->later.owned = 0;
    if (d->later.c == 0) return SB_EACTION;
    d->started = 1;
    pthread_create(&d->worker, NULL, complete_later, &d->later);
    return SB_PENDING;
}

static void free_deferring(void *ud) { ((struct deferring *)ud)->freed++; }

static sb_value *n_params(int64_t n) {
    sb_value *p = sb_dict_new();
    sb_dict_set_new(p, "n", sb_int(n));
    return p;
}

static void finish(struct deferring *d) {
    if (d->started) pthread_join(d->worker, NULL);
    d->started = 0;
}

static void test_completes_later(void) {
    sb_mediator *m = sb_mediator_new();
    struct deferring d = {30, SB_OK, 0, {0}, 0, 0};
    CHECK_STATUS(sb_action_register(m, "Net", "fetch", deferred, &d, NULL), SB_OK);
    sb_value *params = n_params(21), *out = NULL;
    CHECK_STATUS(sb_action_perform(m, "Net", "fetch", params, 0, &out), SB_OK);
    CHECK(check_int(out) == 42);
    sb_value_release(out);
    finish(&d);
    CHECK_STATUS(d.later.returned, SB_OK);

    /* A failure, with its status and message. */
    d.fail = SB_ENOTARGET;
    CHECK_STATUS(sb_action_perform(m, "Net", "fetch", params, 0, &out), SB_ENOTARGET);
    CHECK(out == NULL);
    CHECK(ERROR_MENTIONS("it broke later"));
    finish(&d);
    /* Not an error status, or one untrue of a call that ended: SB_EACTION. */
    d.fail = SB_PENDING;
    CHECK_STATUS(sb_action_perform(m, "Net", "fetch", params, 0, &out), SB_EACTION);
    finish(&d);
    d.fail = SB_EQUEUED;
    CHECK_STATUS(sb_action_perform(m, "Net", "fetch", params, 0, &out), SB_EACTION);
    finish(&d);

    /* Through a prepared route and a URL, the same. */
    d.fail = SB_OK;
    sb_route *r = NULL;
    CHECK_STATUS(sb_route_prepare(m, "Net", "fetch", 0, &r), SB_OK);
    CHECK_STATUS(sb_route_call(r, params, &out), SB_OK);
    CHECK(check_int(out) == 42);
    sb_value_release(out);
    finish(&d);
    sb_route_free(r);
    CHECK_STATUS(sb_url_open(m, "app://Net/fetch", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .params = params}, &out), SB_OK);
    CHECK(check_int(out) == 42);
    sb_value_release(out);
    finish(&d);
    sb_value_release(params);
    sb_mediator_free(m);
}

/* ------------------------------------------------- completed at once */

static sb_status completes_itself(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)params, (void)out;
    sb_completion c = sb_completion_take();
    CHECK(c != 0);
    CHECK(sb_completion_take() == c); /* the same call, the same id */
    CHECK_STATUS(sb_completion_succeed(c, sb_string("now")), SB_OK);
    CHECK_STATUS(sb_completion_succeed(c, sb_string("again")), SB_ENOTFOUND);
    return SB_PENDING;
}

static sb_status pending_without_take(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)params, (void)out;
    return SB_PENDING;
}

static sb_completion answered_anyway_id;
static sb_status takes_and_answers(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)params;
    answered_anyway_id = sb_completion_take();
    *out = sb_int(1);
    return SB_OK;
}

static sb_status plain(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)params;
    *out = sb_int(5);
    return SB_OK;
}

static void test_rules_of_use(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_register(m, "A", "self", completes_itself, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "A", "self", NULL, 0, &out), SB_OK);
    size_t len = 0;
    const char *s = sb_value_get_string(out, &len);
    CHECK(s != NULL && len == 3 && memcmp(s, "now", 3) == 0);
    sb_value_release(out);

    CHECK_STATUS(sb_action_register(m, "A", "forgot", pending_without_take, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "A", "forgot", NULL, 0, &out), SB_EACTION);
    CHECK(ERROR_MENTIONS("without taking its completion"));

    /* Taken, then answered anyway: the answer stands, the completion is refused. */
    CHECK_STATUS(sb_action_register(m, "A", "both", takes_and_answers, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "A", "plain", plain, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "A", "both", NULL, 0, &out), SB_OK);
    CHECK(check_int(out) == 1);
    sb_value_release(out);
    CHECK_STATUS(sb_action_perform(m, "A", "plain", NULL, 0, &out), SB_OK); /* not confused by it */
    CHECK(check_int(out) == 5);
    sb_value_release(out);
    CHECK_STATUS(sb_completion_succeed(answered_anyway_id, sb_int(2)), SB_ENOTFOUND); /* closed as it answered */
    CHECK(ERROR_MENTIONS("no open completion"));

    /* Outside any action there is nothing to take; unknown ids are refused. */
    CHECK(sb_completion_take() == 0);
    CHECK(ERROR_MENTIONS("no action is running"));
    CHECK_STATUS(sb_completion_succeed(0, NULL), SB_ENOTFOUND);
    CHECK_STATUS(sb_completion_fail(987654321, SB_EACTION, NULL), SB_ENOTFOUND);
    CHECK(sb_completion_cancelled(987654321) == 0);
    sb_mediator_free(m);
}

/* ------------------------------------------- timeouts and cancellation */

static void test_timeout(void) {
    sb_mediator *m = sb_mediator_new();
    struct deferring d = {300, SB_OK, 0, {0}, 0, 0};
    CHECK_STATUS(sb_action_register(m, "Net", "slow", deferred, &d, free_deferring), SB_OK);
    sb_call_options o = SB_CALL_OPTIONS_INIT;
    o.timeout_ms = 40;
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_perform_opts(m, "Net", "slow", NULL, &o, &out), SB_ETIMEOUT);
    CHECK(ERROR_MENTIONS("Net.slow did not complete"));
    CHECK(sb_completion_cancelled(d.later.c) == 1); /* the work may stop */
    /* The action's userdata outlives its registration while the work runs. */
    CHECK_STATUS(sb_action_unregister(m, "Net", "slow"), SB_OK);
    sb_mediator_free(m);
    CHECK(d.freed == 0);
    finish(&d);
    CHECK_STATUS(d.later.returned, SB_ETIMEOUT);
    enter_until(&d.freed); /* let go after it completed */
    CHECK(d.freed == 1);
}

struct canceller {
    sb_cancellation *token;
    long after_ms;
};

static void *cancel_later(void *arg) {
    struct canceller *c = arg;
    sleep_ms(c->after_ms);
    sb_cancellation_request(c->token);
    return NULL;
}

static sb_completion seen_id;
static int seen_cancelled;
static sb_status watches_cancel(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)params, (void)out;
    seen_id = sb_completion_take();
    return SB_PENDING;
}

static void test_cancellation(void) {
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(m, "Net", "wait", watches_cancel, NULL, NULL), SB_OK);
    sb_call_options o = SB_CALL_OPTIONS_INIT;
    o.cancel = sb_cancellation_new();
    struct canceller c = {o.cancel, 30};
    pthread_t t;
    pthread_create(&t, NULL, cancel_later, &c);
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_perform_opts(m, "Net", "wait", NULL, &o, &out), SB_ECANCELED);
    pthread_join(t, NULL);
    seen_cancelled = sb_completion_cancelled(seen_id);
    CHECK(seen_cancelled == 1);
    CHECK_STATUS(sb_completion_succeed(seen_id, sb_int(1)), SB_ECANCELED);
    /* Cancelled before: the call never starts its target. */
    seen_id = 0;
    CHECK_STATUS(sb_action_perform_opts(m, "Net", "wait", NULL, &o, &out), SB_ECANCELED);
    CHECK(seen_id == 0);
    sb_cancellation_free(o.cancel);
    sb_mediator_free(m);
}

/* A caller that does not wait gives up (its token cancelled) before the
 * action completes: what the call kept goes once the action completes it,
 * not at the call's deadline, until which the timeout watcher holds it. */
static int given_up_dones;
static sb_status given_up_status;
static void given_up(void *ud, sb_status status, sb_value *result) {
    (void)ud;
    given_up_dones++;
    given_up_status = status;
    sb_value_release(result);
}

static void test_given_up_lets_go_at_completion(void) {
    sb_mediator *m = sb_mediator_new();
    struct deferring d = {50, SB_OK, 0, {0}, 0, 0};
    CHECK_STATUS(sb_action_register(m, "Net", "held", deferred, &d, free_deferring), SB_OK);
    sb_call_options o = SB_CALL_OPTIONS_INIT;
    o.timeout_ms = 60000;
    o.cancel = sb_cancellation_new();
    sb_value *params = n_params(1);
    CHECK_STATUS(sb_action_perform_async(m, "Net", "held", params, &o, given_up, NULL), SB_PENDING);
    sb_cancellation_request(o.cancel);
    CHECK(given_up_dones == 1 && given_up_status == SB_ECANCELED);
    CHECK_STATUS(sb_action_unregister(m, "Net", "held"), SB_OK);
    finish(&d);
    CHECK_STATUS(d.later.returned, SB_ECANCELED);
    CHECK(d.freed == 0); /* never inside the completion */
    enter_until(&d.freed);
    CHECK(d.freed == 1);
    sb_value_release(params);
    sb_cancellation_free(o.cancel);
    sb_mediator_free(m);
}

/* Many calls that nobody waits for share one token and time out while this
 * thread makes more: the timeout thread ends them (each leaves the token's
 * list) while a new call's watch drops the ended ones from that list (at
 * 64, 128, ... entries). The two took the token's lock and a call's in
 * opposite orders, and the process died ("Recursive call to lock Mutex",
 * the kernel's deadlock check) within a second or two. */
#define SHARED_TOKEN_CALLS 20000
static sb_completion shared_token_ids[SHARED_TOKEN_CALLS];
static int shared_token_taken;
static long shared_token_dones, shared_token_timeouts;

static sb_status takes_and_keeps(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)params, (void)out;
    shared_token_ids[shared_token_taken++] = sb_completion_take();
    return SB_PENDING;
}

static void shared_token_done(void *ud, sb_status status, sb_value *result) {
    (void)ud;
    sb_value_release(result);
    pthread_mutex_lock(&done_mu);
    shared_token_dones++;
    if (status == SB_ETIMEOUT) shared_token_timeouts++;
    pthread_mutex_unlock(&done_mu);
}

static long shared_token_count(long *counter) {
    pthread_mutex_lock(&done_mu);
    long n = *counter;
    pthread_mutex_unlock(&done_mu);
    return n;
}

static void test_one_token_many_timeouts(void) {
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(m, "Net", "slow", takes_and_keeps, NULL, NULL), SB_OK);
    sb_call_options o = SB_CALL_OPTIONS_INIT;
    o.cancel = sb_cancellation_new();
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int made = 0;
    while (made < SHARED_TOKEN_CALLS) {
        o.timeout_ms = 1 + (unsigned)made % 10;
        /* SB_OK when its deadline had passed already: its done ran here. */
        sb_status started = sb_action_perform_async(m, "Net", "slow", NULL, &o, shared_token_done, NULL);
        CHECK(started == SB_PENDING || started == SB_OK);
        made++;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec >= 2) break; /* slow machines (valgrind) make fewer */
    }
    /* A deadlocked timeout thread never ends the rest. */
    for (int i = 0; i < 2000 && shared_token_count(&shared_token_dones) < made; i++) sleep_ms(1);
    CHECK(made >= 64); /* past the first time the token's list is pruned */
    CHECK(shared_token_count(&shared_token_dones) == made);
    CHECK(shared_token_count(&shared_token_timeouts) == made);
    CHECK(shared_token_taken == made);
    /* Given up: each completion is refused now, and lets go of its call. */
    for (int i = 0; i < shared_token_taken; i++) {
        CHECK_STATUS(sb_completion_succeed(shared_token_ids[i], sb_int(1)), SB_ETIMEOUT);
    }
    robustness_row("Asynchronous calls nobody waits for share one cancellation token and time out (1-10 ms) while "
                   "one thread makes 20,000 more (fewer under valgrind: 2 s)", 1,
                   "every done runs once with SB_ETIMEOUT; no deadlock between the token and its calls (it died in "
                   "1-2 s: \"Recursive call to lock Mutex\"); a token's watched calls leave it in constant time");
    sb_cancellation_free(o.cancel);
    sb_mediator_free(m);
}

/* ------------------------------ contracts and observers see the completion */

static uint64_t end_duration;
static sb_status end_status;
static void observe(void *ud, const sb_call_event *e) {
    (void)ud;
    if (e->phase == SB_CALL_END) {
        end_duration = e->duration_ns;
        end_status = e->status;
    }
}

static void test_around_the_action(void) {
    sb_mediator *m = sb_mediator_new();
    struct deferring d = {60, SB_OK, 0, {0}, 0, 0};
    CHECK_STATUS(sb_action_register_contract(m, "Net", "typed", "n: int -> string", deferred, &d, NULL), SB_OK);
    CHECK_STATUS(sb_observer_add(m, observe, NULL, NULL, NULL), SB_OK);
    sb_value *params = n_params(2), *out = NULL;
    CHECK_STATUS(sb_action_perform(m, "Net", "typed", params, 0, &out), SB_ETYPE); /* completed with an int */
    finish(&d);
    CHECK(end_status == SB_ETYPE);
    CHECK(end_duration >= 50000000ull); /* the end event came at completion */
    sb_value_release(params);
    sb_mediator_free(m);
}

/* ---------------------------------------------- exactly once, under races */

#define RACERS 8
struct race {
    sb_completion c;
    pthread_barrier_t *go;
    sb_status got;
};

static void *race_to_complete(void *arg) {
    struct race *r = arg;
    pthread_barrier_wait(r->go);
    r->got = sb_completion_succeed(r->c, sb_int(7));
    return NULL;
}

static pthread_barrier_t race_barrier;
static struct race racers[RACERS];
static pthread_t racer_threads[RACERS];

static sb_status raced(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)params, (void)out;
    sb_completion c = sb_completion_take();
    for (int i = 0; i < RACERS; i++) {
        racers[i].c = c;
        racers[i].go = &race_barrier;
        pthread_create(&racer_threads[i], NULL, race_to_complete, &racers[i]);
    }
    return SB_PENDING;
}

static void test_exactly_once(void) {
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(m, "R", "race", raced, NULL, NULL), SB_OK);
    int rounds = 300, wrong = 0;
    for (int round = 0; round < rounds; round++) {
        pthread_barrier_init(&race_barrier, NULL, RACERS);
        sb_value *out = NULL;
        if (sb_action_perform(m, "R", "race", NULL, 0, &out) != SB_OK || check_int(out) != 7) wrong++;
        sb_value_release(out);
        int accepted = 0;
        for (int i = 0; i < RACERS; i++) {
            pthread_join(racer_threads[i], NULL);
            if (racers[i].got == SB_OK) accepted++;
            else if (racers[i].got != SB_ENOTFOUND) wrong++;
        }
        if (accepted != 1) wrong++;
        pthread_barrier_destroy(&race_barrier);
    }
    CHECK(wrong == 0);
    robustness_row("Asynchronous C action completed by 8 threads at once (sb_completion_succeed)", rounds,
                   "exactly one completion is accepted and answers the call; the others get SB_ENOTFOUND");
    sb_mediator_free(m);
}

/* Many callers at once, each call completed by a thread of its own. */
struct caller {
    sb_mediator *m;
    int wrong;
};

static sb_status spawn_completion(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)out;
    struct later *l = malloc(sizeof *l);
    int64_t n = 0;
    sb_value_get_int(sb_dict_get(params, "n"), &n);
    l->c = sb_completion_take();
    l->delay_ms = n % 3;
    l->value = n * 2;
    l->fail = SB_OK;
    l->owned = 1;
    pthread_t t;
    pthread_create(&t, NULL, complete_later, l);
    pthread_detach(t);
    return SB_PENDING;
}

static void *call_many(void *arg) {
    struct caller *c = arg;
    for (int64_t i = 0; i < 200; i++) {
        sb_value *p = n_params(i), *out = NULL;
        if (sb_action_perform(c->m, "Pool", "work", p, 0, &out) != SB_OK || check_int(out) != i * 2) c->wrong++;
        sb_value_release(out);
        sb_value_release(p);
    }
    return NULL;
}

static void test_many_callers(void) {
    sb_mediator *m = sb_mediator_new();
    pthread_mutex_lock(&done_mu);
    long before = done_count;
    pthread_mutex_unlock(&done_mu);
    CHECK_STATUS(sb_action_register(m, "Pool", "work", spawn_completion, NULL, NULL), SB_OK);
    struct caller callers[RACERS];
    pthread_t threads[RACERS];
    for (int i = 0; i < RACERS; i++) {
        callers[i].m = m;
        callers[i].wrong = 0;
        pthread_create(&threads[i], NULL, call_many, &callers[i]);
    }
    int wrong = 0;
    for (int i = 0; i < RACERS; i++) {
        pthread_join(threads[i], NULL);
        wrong += callers[i].wrong;
    }
    CHECK(wrong == 0);
    /* Every detached completer has returned before the mediator goes. */
    for (;;) {
        pthread_mutex_lock(&done_mu);
        long done = done_count - before;
        pthread_mutex_unlock(&done_mu);
        if (done == RACERS * 200) break;
        sleep_ms(1);
    }
    sb_mediator_free(m);
}


/* ------------------------- what may not answer later, and what it leaves */

static sb_completion stray_id;
static void takes_at_end(void *ud, const sb_call_event *e) {
    (void)ud;
    if (e->phase == SB_CALL_END && stray_id == 0) stray_id = sb_completion_take();
}

static sb_status callback_defers(void *ud, const sb_value *args, sb_value **out) {
    (void)ud, (void)args, (void)out;
    sb_completion_take();
    return SB_PENDING;
}

static sb_status completes_then_answers(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)params;
    sb_completion c = sb_completion_take();
    CHECK_STATUS(sb_completion_succeed(c, sb_string("given first")), SB_OK);
    *out = sb_int(3); /* released: the completion answered first */
    return SB_OK;
}

static int takes_freed;
static void free_takes(void *ud) { (void)ud; takes_freed++; }

static void test_only_actions(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    /* An id an observer took is closed as its call ends: never handed on. */
    struct deferring d = {10, SB_OK, 0, {0}, 0, 0};
    CHECK_STATUS(sb_action_register(m, "A", "plain", plain, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "Net", "fetch", deferred, &d, NULL), SB_OK);
    uint64_t observer = 0;
    CHECK_STATUS(sb_observer_add(m, takes_at_end, NULL, NULL, &observer), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "A", "plain", NULL, 0, &out), SB_OK);
    sb_value_release(out);
    CHECK(stray_id == 0); /* the end event runs after the action (test_take_around_the_action) */
    sb_value *params = n_params(4);
    CHECK_STATUS(sb_action_perform(m, "Net", "fetch", params, 0, &out), SB_OK);
    CHECK(check_int(out) == 8);
    CHECK(d.later.c != stray_id);
    sb_value_release(out);
    finish(&d);
    CHECK_STATUS(d.later.returned, SB_OK);
    CHECK_STATUS(sb_completion_succeed(stray_id, sb_int(1)), SB_ENOTFOUND);
    CHECK_STATUS(sb_observer_remove(m, observer), SB_OK);
    sb_value_release(params);

    /* A callback must answer before it returns. */
    sb_value *cb = sb_callback_new(callback_defers, NULL, NULL);
    CHECK_STATUS(sb_callback_call(cb, NULL, &out), SB_EACTION);
    CHECK(ERROR_MENTIONS("only actions may answer later"));
    sb_value_release(cb);

    /* Completed, then answered anyway: the first answer (the completion's)
     * stands, the returned value is released (valgrind: nothing lost).
     * Taken and answered 20,000 times: nothing is kept, and the userdata
     * goes with its registration. */
    CHECK_STATUS(sb_action_register(m, "A", "both2", completes_then_answers, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "A", "both2", NULL, 0, &out), SB_OK);
    size_t given_len = 0;
    const char *given = sb_value_get_string(out, &given_len);
    CHECK(given != NULL && given_len == 11 && memcmp(given, "given first", 11) == 0);
    sb_value_release(out);
    CHECK_STATUS(sb_action_register(m, "A", "takes", takes_and_answers, NULL, free_takes), SB_OK);
    int wrong = 0;
    for (int i = 0; i < 20000; i++) {
        if (sb_action_perform(m, "A", "takes", NULL, 0, &out) != SB_OK) wrong++;
        sb_value_release(out);
    }
    CHECK(wrong == 0);
    CHECK_STATUS(sb_action_unregister(m, "A", "takes"), SB_OK);
    CHECK(takes_freed == 1);
    sb_mediator_free(m);
}

/* A class instance the pending work uses is destroyed after it completes,
 * and never inside sb_completion_succeed (a plugin's destroy may unload the
 * code that called it). */
static pthread_t class_worker;
static sb_completion class_id;
static volatile int completing;
static int destroyed, destroyed_while_completing;
static sb_status class_create(void *ud, void **state) { (void)ud; *state = malloc(8); return SB_OK; }
static void class_destroy(void *ud, void *state) {
    (void)ud;
    free(state);
    destroyed++;
    if (completing) destroyed_while_completing++;
}
static void *class_complete(void *arg) {
    (void)arg;
    sleep_ms(80);
    completing = 1;
    sb_status s = sb_completion_succeed(class_id, sb_int(1));
    completing = 0;
    CHECK_STATUS(s, SB_ETIMEOUT);
    return NULL;
}
static sb_status class_call(void *ud, void *state, const char *action, const sb_value *args, sb_value **out) {
    (void)ud, (void)state, (void)action, (void)args, (void)out;
    class_id = sb_completion_take();
    pthread_create(&class_worker, NULL, class_complete, NULL);
    return SB_PENDING;
}

static void test_instance_outlives_the_caller(void) {
    static const char *const actions[] = {"work", NULL};
    sb_class_def def = SB_CLASS_DEF_INIT;
    def.actions = actions;
    def.create = class_create;
    def.call = class_call;
    def.destroy = class_destroy;
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_class_register(m, "Work", &def, NULL, NULL), SB_OK);
    sb_call_options o = SB_CALL_OPTIONS_INIT;
    o.timeout_ms = 20;
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_perform_opts(m, "Work", "work", NULL, &o, &out), SB_ETIMEOUT);
    sb_mediator_free(m);
    CHECK(destroyed == 0); /* the work still uses it */
    pthread_join(class_worker, NULL);
    CHECK(destroyed_while_completing == 0);
    enter_until(&destroyed); /* a later thread entering the library lets it go */
    CHECK(destroyed == 1);
}


/* The same when the caller's `done`, run inside sb_completion_succeed,
 * enters the library (a call, a mediator made and freed) or frees the
 * mediator the call was made on: those entries collect, and used to let
 * the unregistered action's userdata go right there, inside
 * sb_completion_succeed (200 of 200 rounds; a hostile review's). */
static __thread int in_succeed;
static int entering_freed, entering_freed_inside;
static sb_completion entering_pending;
static sb_mediator *entering_m, *entering_round_m;
static sb_status entering_defers(void *ud, const sb_value *p, sb_value **out) {
    (void)ud, (void)p, (void)out;
    entering_pending = sb_completion_take();
    return SB_PENDING;
}
static void entering_free(void *ud) {
    (void)ud;
    entering_freed++;
    if (in_succeed) entering_freed_inside++;
}
static void entering_done(void *ud, sb_status s, sb_value *r) {
    (void)ud, (void)s;
    sb_value_release(r);
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_perform(entering_m, "A", "plain", NULL, 0, &out), SB_OK);
    sb_value_release(out);
    sb_mediator *other = sb_mediator_new();
    sb_action_register(other, "X", "y", plain, NULL, NULL);
    sb_mediator_free(other);
    if (entering_round_m != NULL) sb_mediator_free(entering_round_m); /* with its target registered */
    entering_round_m = NULL;
}
static void *entering_complete(void *arg) {
    (void)arg;
    in_succeed = 1;
    CHECK_STATUS(sb_completion_succeed(entering_pending, sb_int(7)), SB_OK);
    in_succeed = 0;
    return NULL;
}

static void test_let_go_outside_succeed_when_done_enters(void) {
    entering_m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(entering_m, "A", "plain", plain, NULL, NULL), SB_OK);
    int rounds = 50;
    for (int i = 0; i < rounds; i++) {
        int before = entering_freed;
        /* Even rounds: the target unregistered while the call is pending;
         * odd rounds: the `done` frees the call's mediator. */
        sb_mediator *m = i % 2 == 0 ? entering_m : (entering_round_m = sb_mediator_new());
        CHECK_STATUS(sb_action_register(m, "T", "go", entering_defers, (void *)1, entering_free), SB_OK);
        CHECK_STATUS(sb_action_perform_async(m, "T", "go", NULL, NULL, entering_done, NULL), SB_PENDING);
        if (i % 2 == 0) CHECK_STATUS(sb_target_unregister(m, "T"), SB_OK);
        pthread_t worker;
        pthread_create(&worker, NULL, entering_complete, NULL);
        pthread_join(worker, NULL);
        for (int k = 0; k < 2000 && entering_freed == before; k++) {
            sb_mediator *other = sb_mediator_new();
            sb_mediator_free(other);
        }
        CHECK(entering_freed == before + 1);
    }
    CHECK(entering_freed == rounds);
    CHECK(entering_freed_inside == 0);
    sb_mediator_free(entering_m);
}

/* A worker that enters the library only while it completes calls (each
 * `done` starts the next call, which the worker completes in turn), the
 * other threads idle: what each call kept is let go by the next one's
 * entries (not left to pile up), never inside its own completion. */
static sb_mediator *chain_m;
static sb_completion chain_next;
static long chain_next_round;
static __thread long chain_completing_round;
static int chain_left, chain_freed, chain_own_inside, chain_over;
static pthread_mutex_t chain_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t chain_ended = PTHREAD_COND_INITIALIZER;
static void chain_done(void *ud, sb_status s, sb_value *r);
static sb_status chain_defers(void *ud, const sb_value *p, sb_value **out) {
    (void)p, (void)out;
    chain_next = sb_completion_take();
    chain_next_round = (long)(intptr_t)ud;
    return SB_PENDING;
}
static void chain_free(void *ud) {
    chain_freed++;
    if (in_succeed && (long)(intptr_t)ud == chain_completing_round) chain_own_inside++;
}
static void chain_start(void) {
    void *round = (void *)(intptr_t)chain_left;
    CHECK_STATUS(sb_action_register(chain_m, "C", "go", chain_defers, round, chain_free), SB_OK);
    CHECK_STATUS(sb_action_perform_async(chain_m, "C", "go", NULL, NULL, chain_done, NULL), SB_PENDING);
    CHECK_STATUS(sb_target_unregister(chain_m, "C"), SB_OK);
}
static void chain_done(void *ud, sb_status s, sb_value *r) {
    (void)ud;
    CHECK_STATUS(s, SB_OK);
    sb_value_release(r);
    if (--chain_left > 0) {
        chain_start();
        return;
    }
    pthread_mutex_lock(&chain_lock);
    chain_over = 1;
    pthread_cond_signal(&chain_ended);
    pthread_mutex_unlock(&chain_lock);
}
static void *chain_worker(void *arg) {
    (void)arg;
    while (chain_next != 0) {
        sb_completion c = chain_next;
        chain_completing_round = chain_next_round;
        chain_next = 0;
        in_succeed = 1;
        CHECK_STATUS(sb_completion_succeed(c, sb_int(1)), SB_OK);
        in_succeed = 0;
    }
    return NULL;
}

static void test_let_go_when_only_completers_enter(void) {
    int rounds = 3000;
    chain_m = sb_mediator_new();
    chain_left = rounds;
    chain_start();
    pthread_t worker;
    pthread_create(&worker, NULL, chain_worker, NULL);
    pthread_mutex_lock(&chain_lock);
    while (!chain_over) pthread_cond_wait(&chain_ended, &chain_lock);
    pthread_mutex_unlock(&chain_lock);
    pthread_join(worker, NULL);
    /* Nothing on this thread entered the library since the first call:
     * only what the last two calls kept may wait (each call's is let go by
     * the entries of the next one's `done`, and the last one's entered
     * nothing). */
    CHECK(chain_freed >= rounds - 2);
    enter_until_at_least(&chain_freed, rounds);
    CHECK(chain_freed == rounds);
    CHECK(chain_own_inside == 0);
    sb_mediator_free(chain_m);
}

/* ------------------------------ completed before the action returned
 * Such a completion has no object of its own until its action returns
 * (OpenCompletions): these check that it behaves as any other. */

struct early {
    sb_completion c;
    sb_completion again;        /* taken a second time in the same action */
    sb_status first, second;    /* what the completer's two completions got */
    int cancelled_before;       /* sb_completion_cancelled while it ran */
    int waits;                  /* sb_completion_caller_waits while it ran */
    sb_cancellation *cancel;    /* cancelled by the action after completion, if set */
    sb_cancellation *cancel_first; /* cancelled by the action before it takes its completion */
    int answer_anyway;          /* return SB_OK with its own answer; 2: fail with SB_EACTION */
    int use_fail;               /* complete with sb_completion_fail */
    int delay_us;               /* how long the action goes on after */
};

static void *complete_twice(void *arg) {
    struct early *e = arg;
    e->first = e->use_fail ? sb_completion_fail(e->c, SB_ENOTARGET, "early failure")
                           : sb_completion_succeed(e->c, sb_int(5));
    e->second = sb_completion_succeed(e->c, sb_int(6));
    return NULL;
}

static sb_status completed_by_a_thread(void *ud, const sb_value *params, sb_value **out) {
    struct early *e = ud;
    (void)params;
    if (e->cancel_first) sb_cancellation_request(e->cancel_first);
    e->c = sb_completion_take();
    e->cancelled_before = sb_completion_cancelled(e->c);
    e->waits = sb_completion_caller_waits(e->c);
    pthread_t t;
    pthread_create(&t, NULL, complete_twice, e);
    pthread_join(t, NULL); /* completed (twice) before this returns */
    e->again = sb_completion_take();
    if (e->cancel) sb_cancellation_request(e->cancel);
    if (e->delay_us) sleep_ms(e->delay_us / 1000);
    if (e->answer_anyway == 1) {
        *out = sb_int(99);
        return SB_OK;
    }
    if (e->answer_anyway == 2) {
        *out = sb_int(98); /* left in *out with a failure: released */
        sb_error_set("the action's own failure");
        return SB_EACTION;
    }
    return SB_PENDING;
}

static int early_done_calls;
static sb_status early_done_status;
static int64_t early_done_value;
static void early_done(void *ud, sb_status status, sb_value *result) {
    (void)ud;
    early_done_calls++;
    early_done_status = status;
    early_done_value = result ? check_int(result) : -1;
    sb_value_release(result);
}

static void test_completed_before_return(void) {
    sb_mediator *m = sb_mediator_new();
    struct early e;
    memset(&e, 0, sizeof e);
    CHECK_STATUS(sb_action_register(m, "E", "early", completed_by_a_thread, &e, NULL), SB_OK);
    sb_value *out = NULL;

    /* The answer reaches the caller; the second completion is refused as
     * one of an id that is not open; the id taken again is the same. */
    CHECK_STATUS(sb_action_perform(m, "E", "early", NULL, 0, &out), SB_OK);
    CHECK(check_int(out) == 5);
    sb_value_release(out);
    CHECK_STATUS(e.first, SB_OK);
    CHECK_STATUS(e.second, SB_ENOTFOUND);
    CHECK(e.again == e.c && e.c != 0);
    CHECK(e.cancelled_before == 0 && e.waits == 1);
    /* Kept and used after: not open, whatever is asked. */
    CHECK_STATUS(sb_completion_succeed(e.c, sb_int(1)), SB_ENOTFOUND);
    CHECK_STATUS(sb_completion_fail(e.c, SB_EACTION, "late"), SB_ENOTFOUND);
    CHECK(sb_completion_cancelled(e.c) == 0 && sb_completion_caller_waits(e.c) == 0);
    /* Forged ids: never open. */
    CHECK_STATUS(sb_completion_succeed(e.c + 1000, sb_int(1)), SB_ENOTFOUND);
    CHECK_STATUS(sb_completion_succeed(UINT64_MAX, NULL), SB_ENOTFOUND);
    CHECK_STATUS(sb_completion_fail(0, SB_EACTION, NULL), SB_ENOTFOUND);

    /* Ids are never reused: the next call's is greater. */
    sb_completion before = e.c;
    CHECK_STATUS(sb_action_perform(m, "E", "early", NULL, 0, &out), SB_OK);
    sb_value_release(out);
    CHECK(e.c > before);

    /* A failure, with its status and message. */
    e.use_fail = 1;
    CHECK_STATUS(sb_action_perform(m, "E", "early", NULL, 0, &out), SB_ENOTARGET);
    CHECK(out == NULL && ERROR_MENTIONS("early failure"));
    CHECK_STATUS(e.second, SB_ENOTFOUND);
    e.use_fail = 0;

    /* Answered anyway, after its completion was completed: the first answer
     * wins. The completer was told SB_OK, and the caller gets its value; the
     * action's own answer (a value, or a failure) is released. The id is
     * closed. (Before, the action's answer replaced the completion's, which
     * its completer had been told the caller gets.) */
    int wins = 0;
    for (int anyway = 1; anyway <= 2; anyway++) {
        e.answer_anyway = anyway;
        CHECK_STATUS(sb_action_perform(m, "E", "early", NULL, 0, &out), SB_OK);
        if (check_int(out) == 5) wins++;
        sb_value_release(out);
        CHECK_STATUS(e.first, SB_OK);
        CHECK_STATUS(sb_completion_succeed(e.c, NULL), SB_ENOTFOUND);
        /* A caller that does not wait: the same answer, once, through done. */
        early_done_calls = 0;
        CHECK_STATUS(sb_action_perform_async(m, "E", "early", NULL, NULL, early_done, NULL), SB_OK);
        if (early_done_calls == 1 && early_done_status == SB_OK && early_done_value == 5) wins++;
        e.use_fail = 1;
        CHECK_STATUS(sb_action_perform(m, "E", "early", NULL, 0, &out), SB_ENOTARGET);
        if (out == NULL && ERROR_MENTIONS("early failure")) wins++;
        e.use_fail = 0;
    }
    e.answer_anyway = 0;
    CHECK(wins == 6);
    robustness_row("Asynchronous C action completed while it runs, then returning a value or a failure of its own", 6,
                   "the first answer wins: the caller gets the completion's, as its completer was told (SB_OK)");

    /* Cancelled after it completed, before the action returned: the answer
     * came first and stands. */
    sb_cancellation *token = sb_cancellation_new();
    e.cancel = token;
    sb_call_options opts = {.version = SB_CALL_OPTIONS_VERSION, .cancel = token};
    CHECK_STATUS(sb_action_perform_opts(m, "E", "early", NULL, &opts, &out), SB_OK);
    CHECK(check_int(out) == 5);
    sb_value_release(out);
    e.cancel = NULL;
    sb_cancellation_free(token);
    /* Cancelled while it runs, before it was completed: the action sees it;
     * a completion that comes anyway before it returns still answers (as
     * before this design). */
    token = sb_cancellation_new();
    e.cancel_first = token;
    opts.cancel = token;
    CHECK_STATUS(sb_action_perform_opts(m, "E", "early", NULL, &opts, &out), SB_OK);
    CHECK(e.cancelled_before == 1 && check_int(out) == 5);
    sb_value_release(out);
    e.cancel_first = NULL;
    sb_cancellation_free(token);

    /* A timeout shorter than the action's run: the answer came before the
     * call waited, and stands. */
    e.delay_us = 20000;
    sb_call_options timed = {.version = SB_CALL_OPTIONS_VERSION, .timeout_ms = 1};
    CHECK_STATUS(sb_action_perform_opts(m, "E", "early", NULL, &timed, &out), SB_OK);
    CHECK(check_int(out) == 5);
    sb_value_release(out);
    e.delay_us = 0;

    /* A caller that does not wait: done runs once, here, before it returns. */
    early_done_calls = 0;
    CHECK_STATUS(sb_action_perform_async(m, "E", "early", NULL, NULL, early_done, NULL), SB_OK);
    CHECK(early_done_calls == 1 && early_done_status == SB_OK && early_done_value == 5);
    CHECK(e.waits == 0);
    e.use_fail = 1;
    CHECK_STATUS(sb_action_perform_async(m, "E", "early", NULL, NULL, early_done, NULL), SB_OK);
    CHECK(early_done_calls == 2 && early_done_status == SB_ENOTARGET);
    e.use_fail = 0;
    sb_mediator_free(m);
}

/* Open completions (callers that do not wait) fill the direct slots, then
 * completions completed before their action returned land beside them. */
static sb_completion held_ids[200];
static int held_count;
static sb_status holds(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)params, (void)out;
    held_ids[held_count++] = sb_completion_take();
    return SB_PENDING;
}
static sb_status completes_itself_early(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)params, (void)out;
    sb_completion c = sb_completion_take();
    sb_status first = sb_completion_succeed(c, sb_int(3));
    sb_status second = sb_completion_succeed(c, sb_int(4));
    return first == SB_OK && second == SB_ENOTFOUND ? SB_PENDING : SB_EACTION;
}
static void test_early_beside_open(void) {
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(m, "H", "hold", holds, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "H", "self", completes_itself_early, NULL, NULL), SB_OK);
    held_count = 0;
    early_done_calls = 0;
    int wrong = 0;
    for (int i = 0; i < 200; i++) {
        if (sb_action_perform_async(m, "H", "hold", NULL, NULL, early_done, NULL) != SB_PENDING) wrong++;
        sb_value *out = NULL;
        if (sb_action_perform(m, "H", "self", NULL, 0, &out) != SB_OK || check_int(out) != 3) wrong++;
        sb_value_release(out);
    }
    CHECK(wrong == 0 && held_count == 200 && early_done_calls == 0);
    for (int i = 199; i >= 0; i--) {
        CHECK_STATUS(sb_completion_succeed(held_ids[i], sb_int(i)), SB_OK);
        CHECK(early_done_calls == 200 - i && early_done_value == i);
        CHECK_STATUS(sb_completion_succeed(held_ids[i], sb_int(i)), SB_ENOTFOUND);
    }
    sb_mediator_free(m);
}

/* A completer racing the action's return: it completes just before, just
 * after, or as the action returns; then completes again. */
struct racing {
    sb_completion c;
    int spin;
    sb_status first, second;
    pthread_t t;
};
static void *race_return(void *arg) {
    struct racing *r = arg;
    for (volatile int i = 0; i < r->spin; i++) {}
    r->first = sb_completion_succeed(r->c, sb_int(11));
    r->second = sb_completion_succeed(r->c, sb_int(12));
    return NULL;
}
static sb_status races_return(void *ud, const sb_value *params, sb_value **out) {
    struct racing *r = ud;
    (void)params, (void)out;
    r->c = sb_completion_take();
    pthread_create(&r->t, NULL, race_return, r);
    return SB_PENDING;
}
static void test_race_with_return(void) {
    sb_mediator *m = sb_mediator_new();
    struct racing r;
    memset(&r, 0, sizeof r);
    CHECK_STATUS(sb_action_register(m, "Q", "race", races_return, &r, NULL), SB_OK);
    int rounds = 2000, wrong = 0;
    for (int round = 0; round < rounds; round++) {
        r.spin = (round * 37) % 4000;
        sb_value *out = NULL;
        if (round % 2) {
            if (sb_action_perform(m, "Q", "race", NULL, 0, &out) != SB_OK || check_int(out) != 11) wrong++;
            sb_value_release(out);
            pthread_join(r.t, NULL);
        } else {
            early_done_calls = 0;
            sb_status s = sb_action_perform_async(m, "Q", "race", NULL, NULL, early_done, NULL);
            pthread_join(r.t, NULL);
            if (s != SB_OK && s != SB_PENDING) wrong++;
            if (early_done_calls != 1 || early_done_status != SB_OK || early_done_value != 11) wrong++;
        }
        if (r.first != SB_OK || r.second != SB_ENOTFOUND) wrong++;
    }
    CHECK(wrong == 0);
    robustness_row("Asynchronous C action completed by another thread racing the action's return, then again", rounds,
                   "the caller (waiting or not) gets the first completion once; the second gets SB_ENOTFOUND");
    sb_mediator_free(m);
}

/* What runs at a call's level but is not its action takes no completion:
 * an observer's end event and a URL call's completion callback (after the
 * action), a class's create and the destroy of an instance made for the
 * call (before and after it). They got the call's level's id: completed at
 * once, the completer was told SB_OK and the value was dropped as the call
 * ended (the end event, the URL callback, destroy), or it replaced the
 * action's own answer (create). */
static sb_completion around_ids[4];
static sb_status around_status[4];
static void around_take(int i) {
    around_ids[i] = sb_completion_take();
    around_status[i] = around_ids[i] != 0 ? sb_completion_succeed(around_ids[i], sb_int(100 + i)) : SB_ENOTFOUND;
}
static void around_end(void *ud, const sb_call_event *e) {
    (void)ud;
    if (e->phase == SB_CALL_END) around_take(0);
}
static sb_status around_completion(void *ud, const sb_value *args, sb_value **out) {
    (void)ud, (void)args, (void)out;
    around_take(1);
    return SB_OK;
}
static sb_status around_create(void *ud, void **state) {
    (void)ud;
    *state = NULL;
    around_take(2);
    return SB_OK;
}
static void around_destroy(void *ud, void *state) {
    (void)ud, (void)state;
    around_take(3);
}
static sb_status around_call(void *ud, void *state, const char *action, const sb_value *args, sb_value **out) {
    (void)ud, (void)state, (void)action, (void)args;
    *out = sb_int(1);
    return SB_OK;
}

static void test_take_around_the_action(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    memset(around_ids, 0xff, sizeof around_ids);
    CHECK_STATUS(sb_action_register(m, "A", "plain", plain, NULL, NULL), SB_OK);
    uint64_t observer = 0;
    CHECK_STATUS(sb_observer_add(m, around_end, NULL, NULL, &observer), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "A", "plain", NULL, 0, &out), SB_OK);
    sb_value_release(out);
    CHECK_STATUS(sb_observer_remove(m, observer), SB_OK);

    sb_url_options options = SB_URL_OPTIONS_INIT;
    options.completion = sb_callback_new(around_completion, NULL, NULL);
    CHECK_STATUS(sb_url_open(m, "app://A/plain", &options, &out), SB_OK);
    sb_value_release(out);
    sb_value_release((sb_value *)options.completion);

    static const char *const actions[] = {"work", NULL};
    sb_class_def def = SB_CLASS_DEF_INIT;
    def.actions = actions;
    def.create = around_create;
    def.destroy = around_destroy;
    def.call = around_call;
    CHECK_STATUS(sb_class_register(m, "K", &def, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "K", "work", NULL, 0, &out), SB_OK);
    CHECK(check_int(out) == 1); /* the action's own answer */
    sb_value_release(out);
    for (int i = 0; i < 4; i++) {
        CHECK(around_ids[i] == 0);
        CHECK_STATUS(around_status[i], SB_ENOTFOUND);
    }
    robustness_row("sb_completion_take where no action runs at the call's level: an observer's end event, a URL "
                   "call's completion callback, a class's create, the destroy of an instance made for the call", 4,
                   "0: nothing to complete (no completer told SB_OK for a value the caller never gets)");
    sb_mediator_free(m);
}

int main(void) {
    test_completes_later();
    test_rules_of_use();
    test_timeout();
    test_cancellation();
    test_given_up_lets_go_at_completion();
    test_one_token_many_timeouts();
    test_around_the_action();
    test_exactly_once();
    test_many_callers();
    test_only_actions();
    test_instance_outlives_the_caller();
    test_let_go_outside_succeed_when_done_enters();
    test_let_go_when_only_completers_enter();
    test_completed_before_return();
    test_early_beside_open();
    test_race_with_return();
    test_take_around_the_action();
    return check_report("async");
}
