/* Callers that do not wait (issue 21): sb_action_perform_async, sb_url_open_async and
 * sb_route_call_async return at once when the action answers later, and their
 * done callback runs exactly once, on the thread that ends the call: the
 * caller's own when the action answered at once, the completer's, the
 * canceller's, or the library's watch thread at the timeout. No check here
 * depends on timing: workers wait on a gate the test opens. */
#include "check.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* ------------------------------------------------------------ the callback */

struct ended {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int calls;             /* how many times done ran: must end as 1 */
    sb_status status;
    int64_t value;         /* the int result, or INT64_MIN */
    char message[256];     /* sb_error_message() during the callback */
    pthread_t thread;      /* where done ran */
};

static void ended_init(struct ended *e) {
    memset(e, 0, sizeof *e);
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->cv, NULL);
    e->value = INT64_MIN;
}

static void ended_destroy(struct ended *e) {
    pthread_mutex_destroy(&e->mu);
    pthread_cond_destroy(&e->cv);
}

static void done(void *ud, sb_status status, sb_value *result) {
    struct ended *e = ud;
    pthread_mutex_lock(&e->mu);
    e->calls++;
    e->status = status;
    e->value = result ? check_int(result) : INT64_MIN;
    snprintf(e->message, sizeof e->message, "%s", status == SB_OK ? "" : sb_error_message());
    e->thread = pthread_self();
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
    sb_value_release(result);
}

/* Waits (up to 5 s) until done has run; its call count. */
static int wait_ended(struct ended *e) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 5;
    pthread_mutex_lock(&e->mu);
    while (e->calls == 0) {
        if (pthread_cond_timedwait(&e->cv, &e->mu, &until) != 0) break;
    }
    int calls = e->calls;
    pthread_mutex_unlock(&e->mu);
    return calls;
}

/* ------------------------------------------------------------- the actions */

static sb_status at_once(void *ud, const sb_value *params, sb_value **out) {
    (void)ud;
    int64_t n = 0;
    sb_value_get_int(sb_dict_get(params, "n"), &n);
    *out = sb_int(n + 1);
    return SB_OK;
}

/* A gate a worker waits behind until the test opens it. */
struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int open;
};

static void gate_init(struct gate *g) {
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->open = 0;
}

static void gate_open(struct gate *g) {
    pthread_mutex_lock(&g->mu);
    g->open = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

static void gate_pass(struct gate *g) {
    pthread_mutex_lock(&g->mu);
    while (!g->open) pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
}

/* The deferring action's userdata: its completion, the worker that
 * completes it behind the gate, and how. */
struct later {
    struct gate gate;
    sb_completion c;
    pthread_t worker;
    int started;
    sb_status fail;        /* SB_OK: answer sb_int(n * 2); else fail with it */
    int64_t n;
    sb_status returned;    /* what completing returned */
    int caller_waits;      /* sb_completion_caller_waits inside the action */
    pthread_t completer;
};

static void later_init(struct later *l) {
    memset(l, 0, sizeof *l);
    gate_init(&l->gate);
    l->returned = (sb_status)-1;
}

static void *complete_behind_gate(void *arg) {
    struct later *l = arg;
    gate_pass(&l->gate);
    l->completer = pthread_self();
    l->returned = l->fail == SB_OK ? sb_completion_succeed(l->c, sb_int(l->n * 2))
                                   : sb_completion_fail(l->c, l->fail, "the disk broke later");
    return NULL;
}

static sb_status deferring(void *ud, const sb_value *params, sb_value **out) {
    struct later *l = ud;
    (void)out;
    sb_value_get_int(sb_dict_get(params, "n"), &l->n);
    l->c = sb_completion_take();
    if (l->c == 0) return SB_EACTION;
    l->caller_waits = sb_completion_caller_waits(l->c);
    l->started = 1;
    pthread_create(&l->worker, NULL, complete_behind_gate, l);
    return SB_PENDING;
}

static void later_finish(struct later *l) {
    if (l->started) pthread_join(l->worker, NULL);
    pthread_mutex_destroy(&l->gate.mu);
    pthread_cond_destroy(&l->gate.cv);
}

/* Completes its own call before it returns SB_PENDING. */
static sb_status completes_inside(void *ud, const sb_value *params, sb_value **out) {
    (void)ud; (void)params; (void)out;
    sb_completion c = sb_completion_take();
    sb_completion_succeed(c, sb_int(7));
    return SB_PENDING;
}

static sb_value *dict_n(int64_t n) {
    sb_value *d = sb_dict_new();
    sb_dict_set(d, "n", sb_int(n));
    return d;
}

/* ------------------------------------------------------------------ tests */

static void test_answers_at_once(sb_mediator *m) {
    struct ended e;
    ended_init(&e);
    sb_value *p = dict_n(41);
    CHECK_STATUS(sb_action_perform_async(m, "A", "now", p, NULL, done, &e), SB_OK);
    CHECK(e.calls == 1);                       /* before it returned */
    CHECK(e.status == SB_OK && e.value == 42);
    CHECK(pthread_equal(e.thread, pthread_self()));
    sb_value_release(p);
    ended_destroy(&e);

    /* A failure reaches done too, with its message. */
    ended_init(&e);
    CHECK_STATUS(sb_action_perform_async(m, "Nobody", "none", NULL, NULL, done, &e), SB_OK);
    CHECK(e.calls == 1 && e.status == SB_ENOTARGET);
    CHECK(strstr(e.message, "Nobody") != NULL);
    ended_destroy(&e);

    /* Bad arguments: SB_EINVAL, and done never runs. */
    ended_init(&e);
    CHECK_STATUS(sb_action_perform_async(NULL, "A", "now", NULL, NULL, done, &e), SB_EINVAL);
    CHECK_STATUS(sb_action_perform_async(m, "A", "now", NULL, NULL, NULL, &e), SB_EINVAL);
    CHECK_STATUS(sb_url_open_async(m, "app://A/now", NULL, NULL, NULL), SB_EINVAL);
    CHECK_STATUS(sb_route_call_async(NULL, NULL, done, &e), SB_EINVAL);
    CHECK(e.calls == 0);
    /* A bad name or params are the call's failure: done gets them. */
    CHECK_STATUS(sb_action_perform_async(m, "", "now", NULL, NULL, done, &e), SB_OK);
    CHECK(e.calls == 1 && e.status == SB_EINVAL);
    ended_destroy(&e);

    /* `done` is the completion: URL options holding one are the call's
     * failure, as is an options version this library does not know. */
    sb_value *completion = sb_callback_new(at_once, NULL, NULL);
    sb_url_options url_options = SB_URL_OPTIONS_INIT;
    url_options.completion = completion;
    ended_init(&e);
    CHECK_STATUS(sb_url_open_async(m, "app://A/now", &url_options, done, &e), SB_OK);
    CHECK(e.calls == 1 && e.status == SB_EINVAL && strstr(e.message, "completion") != NULL);
    ended_destroy(&e);
    url_options.completion = NULL;
    url_options.version = SB_URL_OPTIONS_VERSION + 1;
    ended_init(&e);
    CHECK_STATUS(sb_url_open_async(m, "app://A/now", &url_options, done, &e), SB_OK);
    CHECK(e.calls == 1 && e.status == SB_EINVAL && strstr(e.message, "version") != NULL);
    ended_destroy(&e);
    /* Failures of the URL itself name the function called, not sb_url_open. */
    sb_value *not_dict = sb_int(1);
    url_options = (sb_url_options)SB_URL_OPTIONS_INIT;
    url_options.params = not_dict;
    ended_init(&e);
    CHECK_STATUS(sb_url_open_async(m, "app://A/now", &url_options, done, &e), SB_OK);
    CHECK(e.calls == 1 && e.status == SB_ETYPE && strstr(e.message, "sb_url_open_async: params") != NULL);
    ended_destroy(&e);
    ended_init(&e);
    CHECK_STATUS(sb_url_open_async(m, NULL, NULL, done, &e), SB_OK);
    CHECK(e.calls == 1 && e.status == SB_EINVAL && strstr(e.message, "sb_url_open_async: NULL") != NULL);
    ended_destroy(&e);
    sb_value_release(not_dict);
    sb_value_release(completion);

    /* Completed inside the action before it returned: at once. */
    ended_init(&e);
    CHECK_STATUS(sb_action_perform_async(m, "A", "inside", NULL, NULL, done, &e), SB_OK);
    CHECK(e.calls == 1 && e.status == SB_OK && e.value == 7);
    ended_destroy(&e);
}

static void test_answers_later(sb_mediator *m, struct later *l) {
    struct ended e;
    ended_init(&e);
    later_init(l);
    sb_value *p = dict_n(21);
    CHECK_STATUS(sb_action_perform_async(m, "A", "later", p, NULL, done, &e), SB_PENDING);
    sb_value_release(p);
    CHECK(e.calls == 0);                       /* the worker is still behind its gate */
    CHECK(l->caller_waits == 0);
    gate_open(&l->gate);
    CHECK(wait_ended(&e) == 1);
    later_finish(l);
    CHECK(e.status == SB_OK && e.value == 42);
    CHECK(l->returned == SB_OK);
    CHECK(pthread_equal(e.thread, l->completer));
    sleep_ms(20);
    CHECK(e.calls == 1);
    ended_destroy(&e);

    /* The same action, called by a waiting caller: it says so. */
    later_init(l);
    gate_open(&l->gate);
    sb_value *out = NULL;
    p = dict_n(5);
    CHECK_STATUS(sb_action_perform(m, "A", "later", p, 0, &out), SB_OK);
    later_finish(l);
    CHECK(l->caller_waits == 1);
    CHECK(check_int(out) == 10);
    sb_value_release(out);
    sb_value_release(p);

    /* A failure later: its status and message. */
    ended_init(&e);
    later_init(l);
    l->fail = SB_EPARAMS;
    CHECK_STATUS(sb_action_perform_async(m, "A", "later", NULL, NULL, done, &e), SB_PENDING);
    gate_open(&l->gate);
    CHECK(wait_ended(&e) == 1);
    later_finish(l);
    CHECK(e.status == SB_EPARAMS);
    CHECK(strstr(e.message, "the disk broke later") != NULL);
    ended_destroy(&e);
}

static void test_url_and_route(sb_mediator *m, struct later *l) {
    struct ended e;
    ended_init(&e);
    later_init(l);
    CHECK_STATUS(sb_url_open_async(m, "app://A/later?n=4", NULL, done, &e), SB_PENDING);
    gate_open(&l->gate);
    CHECK(wait_ended(&e) == 1);
    later_finish(l);
    /* A URL's query value is a string; the action reads no int: n stays 0. */
    CHECK(e.status == SB_OK);
    ended_destroy(&e);

    sb_route *r = NULL;
    CHECK_STATUS(sb_route_prepare(m, "A", "later", 0, &r), SB_OK);
    ended_init(&e);
    later_init(l);
    sb_value *p = dict_n(8);
    CHECK_STATUS(sb_route_call_async(r, p, done, &e), SB_PENDING);
    sb_value_release(p);
    gate_open(&l->gate);
    CHECK(wait_ended(&e) == 1);
    later_finish(l);
    CHECK(e.status == SB_OK && e.value == 16);
    ended_destroy(&e);
    sb_route_free(r);
}

static void test_timeout_and_cancel(sb_mediator *m, struct later *l) {
    /* Nobody completes in time: the watch thread ends the call; the late
     * completion is told it came too late. */
    struct ended e;
    ended_init(&e);
    later_init(l);
    sb_call_options o = SB_CALL_OPTIONS_INIT;
    /* Long enough for the action to return first even under valgrind on a
     * loaded machine (30 ms was not): a call that times out before its
     * action returns may have its done run here (SB_OK, not SB_PENDING). */
    o.timeout_ms = 300;
    CHECK_STATUS(sb_action_perform_async(m, "A", "later", NULL, &o, done, &e), SB_PENDING);
    CHECK(wait_ended(&e) == 1);
    CHECK(e.status == SB_ETIMEOUT);
    CHECK(!pthread_equal(e.thread, pthread_self()));
    CHECK(sb_completion_cancelled(l->c) == 1);
    gate_open(&l->gate);
    later_finish(l);
    CHECK(l->returned == SB_ETIMEOUT);
    CHECK(e.calls == 1);
    ended_destroy(&e);

    /* Cancelled while pending: done runs on the cancelling thread. */
    ended_init(&e);
    later_init(l);
    sb_cancellation *token = sb_cancellation_new();
    sb_call_options c = SB_CALL_OPTIONS_INIT;
    c.cancel = token;
    CHECK_STATUS(sb_action_perform_async(m, "A", "later", NULL, &c, done, &e), SB_PENDING);
    sb_cancellation_request(token);
    CHECK(e.calls == 1);                       /* before sb_cancellation_request returned ... */
    CHECK(pthread_equal(e.thread, pthread_self())); /* ... on the cancelling thread */
    CHECK(e.status == SB_ECANCELED);
    gate_open(&l->gate);
    later_finish(l);
    CHECK(l->returned == SB_ECANCELED);
    CHECK(e.calls == 1);
    ended_destroy(&e);

    /* Cancelled before: done at once, the action never runs. */
    ended_init(&e);
    later_init(l);
    CHECK_STATUS(sb_action_perform_async(m, "A", "later", NULL, &c, done, &e), SB_OK);
    CHECK(e.calls == 1 && e.status == SB_ECANCELED);
    CHECK(l->started == 0);
    later_finish(l);
    ended_destroy(&e);
    sb_cancellation_free(token);
}

/* Contracts and observers see the answer when it comes. */
static int end_events;
static sb_status end_status;

static void observe(void *ud, const sb_call_event *ev) {
    (void)ud;
    if (ev->phase == SB_CALL_END) {
        end_events++;
        end_status = ev->status;
    }
}

static void test_contract_and_observer(struct later *l) {
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_action_register_contract(m, "T", "typed", "n: int -> string", deferring, l, NULL), SB_OK);
    CHECK_STATUS(sb_observer_add(m, observe, NULL, NULL, NULL), SB_OK);
    struct ended e;
    ended_init(&e);
    later_init(l);
    end_events = 0;
    sb_value *p = dict_n(3);
    CHECK_STATUS(sb_action_perform_async(m, "T", "typed", p, NULL, done, &e), SB_PENDING);
    sb_value_release(p);
    CHECK(end_events == 0);                    /* the call has not ended */
    gate_open(&l->gate);
    CHECK(wait_ended(&e) == 1);
    later_finish(l);
    CHECK(e.status == SB_ETYPE);               /* an int, and the contract says string */
    CHECK(strstr(e.message, "string") != NULL);
    CHECK(end_events == 1 && end_status == SB_ETYPE);
    ended_destroy(&e);
    sb_mediator_free(m);
}

/* Exactly once: a completer and a canceller race, 300 times. */
struct racer {
    struct later *l;
    sb_cancellation *token;
    struct gate *start;
};

static void *cancel_behind_gate(void *arg) {
    struct racer *r = arg;
    gate_pass(r->start);
    sb_cancellation_request(r->token);
    return NULL;
}

static void test_race(sb_mediator *m, struct later *l) {
    int once = 1, completions_ok = 0, cancels = 0;
    for (int round = 0; round < 300; round++) {
        struct ended e;
        ended_init(&e);
        later_init(l);
        struct gate start;
        gate_init(&start);
        sb_cancellation *token = sb_cancellation_new();
        sb_call_options c = SB_CALL_OPTIONS_INIT;
        c.cancel = token;
        struct racer r = {l, token, &start};
        pthread_t canceller;
        pthread_create(&canceller, NULL, cancel_behind_gate, &r);
        if (sb_action_perform_async(m, "A", "later", NULL, &c, done, &e) != SB_PENDING) once = 0;
        gate_open(&l->gate);
        gate_open(&start);
        pthread_join(canceller, NULL);
        later_finish(l);
        if (wait_ended(&e) != 1) once = 0;
        sleep_ms(round % 50 == 0 ? 5 : 0);
        if (e.calls != 1) once = 0;
        if (e.status == SB_OK) completions_ok++;
        if (e.status == SB_ECANCELED) cancels++;
        /* The completer was told the truth: accepted exactly when done got it. */
        if ((l->returned == SB_OK) != (e.status == SB_OK)) once = 0;
        ended_destroy(&e);
        sb_cancellation_free(token);
        pthread_mutex_destroy(&start.mu);
        pthread_cond_destroy(&start.cv);
    }
    CHECK(once);
    CHECK(completions_ok + cancels == 300);
    robustness_row("sb_action_perform_async: completion and cancellation racing", 300,
                   "done ran exactly once each time; the completer was told whether it won");
}

/* The fast path (no hooks, params that fit the contract as they are)
 * checks a declared result when it comes, as the other paths do. */
static void test_fast_path_contract(struct later *l) {
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_action_register_contract(m, "T", "typed", "n: int -> string", deferring, l, NULL), SB_OK);
    sb_route *r = NULL;
    CHECK_STATUS(sb_route_prepare(m, "T", "typed", 0, &r), SB_OK);
    for (int via_route = 0; via_route < 2; via_route++) {
        struct ended e;
        ended_init(&e);
        later_init(l);
        sb_value *p = dict_n(3);
        CHECK_STATUS(via_route ? sb_route_call_async(r, p, done, &e) : sb_action_perform_async(m, "T", "typed", p, NULL, done, &e),
                     SB_PENDING);
        sb_value_release(p);
        gate_open(&l->gate);
        CHECK(wait_ended(&e) == 1);
        later_finish(l);
        CHECK(e.status == SB_ETYPE);
        ended_destroy(&e);
    }
    sb_route_free(r);
    sb_mediator_free(m);
}

/* Observers' start events and interceptors run before the call has found
 * its action: they get no completion (0), so they cannot take the one the
 * action will get. */
static sb_completion taken_by_hook;

static void take_at_start(void *ud, const sb_call_event *ev) {
    (void)ud;
    if (ev->phase == SB_CALL_START) taken_by_hook = sb_completion_take();
}

static int take_in_interceptor(void *ud, sb_call *call) {
    (void)ud;
    (void)call;
    taken_by_hook = sb_completion_take();
    return SB_OK;
}

static void test_hooks_take_nothing(struct later *l) {
    for (int interceptor = 0; interceptor < 2; interceptor++) {
        sb_mediator *m = sb_mediator_new();
        CHECK_STATUS(sb_action_register(m, "A", "later", deferring, l, NULL), SB_OK);
        if (interceptor) {
            CHECK_STATUS(sb_interceptor_add(m, 0, take_in_interceptor, NULL, NULL, NULL), SB_OK);
        } else {
            CHECK_STATUS(sb_observer_add(m, take_at_start, NULL, NULL, NULL), SB_OK);
        }
        struct ended e;
        ended_init(&e);
        later_init(l);
        taken_by_hook = 12345;
        CHECK_STATUS(sb_action_perform_async(m, "A", "later", NULL, NULL, done, &e), SB_PENDING);
        CHECK(taken_by_hook == 0);
        CHECK(l->c != 0);
        CHECK_STATUS(sb_completion_fail(taken_by_hook, SB_EACTION, "not mine"), SB_ENOTFOUND);
        gate_open(&l->gate);
        CHECK(wait_ended(&e) == 1);
        later_finish(l);
        CHECK(e.status == SB_OK);
        CHECK(l->returned == SB_OK);
        ended_destroy(&e);
        sb_mediator_free(m);
    }
}

/* A done that starts a call ending at once, 200,000 times over; a done that
 * completes the next pending call, 20,000 in a chain. Callbacks never nest:
 * each runs after the one before returns, so the stack stays flat. */
static sb_mediator *chain_m;
static long chain_left, chain_calls;

static void again(void *ud, sb_status status, sb_value *result) {
    (void)ud;
    (void)status;
    sb_value_release(result);
    chain_calls++;
    if (--chain_left > 0) sb_action_perform_async(chain_m, "A", "now", NULL, NULL, again, NULL);
}

#define CHAIN 20000
static sb_completion chain_ids[CHAIN];
static long chain_taken;

static sb_status take_into_chain(void *ud, const sb_value *params, sb_value **out) {
    (void)ud; (void)params; (void)out;
    chain_ids[chain_taken++] = sb_completion_take();
    return SB_PENDING;
}

static void complete_next(void *ud, sb_status status, sb_value *result) {
    long i = (long)(intptr_t)ud;
    (void)status;
    sb_value_release(result);
    chain_calls++;
    if (i + 1 < CHAIN) sb_completion_succeed(chain_ids[i + 1], sb_int(i + 1));
}

static void test_callbacks_do_not_nest(sb_mediator *m) {
    chain_m = m;
    chain_left = 200000;
    chain_calls = 0;
    CHECK_STATUS(sb_action_perform_async(m, "A", "now", NULL, NULL, again, NULL), SB_OK);
    CHECK(chain_calls == 200000);

    sb_mediator *c = sb_mediator_new();
    CHECK_STATUS(sb_action_register(c, "Chain", "take", take_into_chain, NULL, NULL), SB_OK);
    chain_taken = 0;
    chain_calls = 0;
    int pending = 1;
    for (long i = 0; i < CHAIN; i++) {
        if (sb_action_perform_async(c, "Chain", "take", NULL, NULL, complete_next, (void *)(intptr_t)i) != SB_PENDING) pending = 0;
    }
    CHECK(pending && chain_taken == CHAIN);
    CHECK_STATUS(sb_completion_succeed(chain_ids[0], sb_int(0)), SB_OK);
    CHECK(chain_calls == CHAIN);
    sb_mediator_free(c);
    robustness_row("sb_action_perform_async: done callbacks that start or complete the next call", 200000 + CHAIN,
                   "each ran after the one before returned: no recursion, no stack growth");
}

/* Many completions open at once (more than the library keeps in its
 * direct slots: the rest go to its overflow table): each id is distinct, is
 * found while open, completes once in any order, and is refused after. */
#define OPEN_MANY 300
static sb_completion many_ids[OPEN_MANY];
static int many_taken;
static int64_t many_sum;
static int many_done;

static sb_status keeps_open(void *ud, const sb_value *params, sb_value **out) {
    (void)ud; (void)params; (void)out;
    many_ids[many_taken++] = sb_completion_take();
    return SB_PENDING;
}

static void many_done_cb(void *ud, sb_status status, sb_value *result) {
    (void)ud;
    int64_t v = 0;
    if (status == SB_OK && sb_value_get_int(result, &v) == SB_OK) many_sum += v;
    many_done++;
    sb_value_release(result);
}

static void test_many_open(sb_mediator *m) {
    CHECK_STATUS(sb_action_register(m, "A", "keeps", keeps_open, NULL, NULL), SB_OK);
    for (int i = 0; i < OPEN_MANY; i++)
        CHECK_STATUS(sb_action_perform_async(m, "A", "keeps", NULL, NULL, many_done_cb, NULL), SB_PENDING);
    CHECK(many_taken == OPEN_MANY);
    int distinct = 1;
    for (int i = 0; i < OPEN_MANY && distinct; i++)
        for (int j = i + 1; j < OPEN_MANY; j++)
            if (many_ids[i] == 0 || many_ids[i] == many_ids[j]) { distinct = 0; break; }
    CHECK(distinct);
    CHECK(sb_completion_caller_waits(many_ids[0]) == 0);
    CHECK(sb_completion_caller_waits(many_ids[OPEN_MANY - 1]) == 0);
    /* The odd ones from the end, then the even ones from the start. */
    int refused_after = 0, accepted = 0;
    for (int i = OPEN_MANY - 1; i >= 0; i--)
        if (i % 2 && sb_completion_succeed(many_ids[i], sb_int(i)) == SB_OK) accepted++;
    for (int i = 0; i < OPEN_MANY; i++)
        if (i % 2 == 0 && sb_completion_succeed(many_ids[i], sb_int(i)) == SB_OK) accepted++;
    for (int i = 0; i < OPEN_MANY; i++)
        if (sb_completion_succeed(many_ids[i], sb_int(1)) == SB_ENOTFOUND
            && sb_completion_caller_waits(many_ids[i]) == 0) refused_after++;
    CHECK(accepted == OPEN_MANY);
    CHECK(refused_after == OPEN_MANY);
    CHECK(many_done == OPEN_MANY);
    CHECK(many_sum == (int64_t)OPEN_MANY * (OPEN_MANY - 1) / 2);
    /* Ids never given: refused the same way. */
    CHECK_STATUS(sb_completion_succeed(many_ids[OPEN_MANY - 1] + 1000, sb_int(1)), SB_ENOTFOUND);
    CHECK_STATUS(sb_completion_fail(0, SB_EACTION, "no"), SB_ENOTFOUND);
}

int main(void) {
    sb_mediator *m = sb_mediator_new();
    struct later l;
    later_init(&l);
    CHECK_STATUS(sb_action_register(m, "A", "now", at_once, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "A", "later", deferring, &l, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "A", "inside", completes_inside, NULL, NULL), SB_OK);

    test_answers_at_once(m);
    test_answers_later(m, &l);
    test_url_and_route(m, &l);
    test_timeout_and_cancel(m, &l);
    test_contract_and_observer(&l);
    test_race(m, &l);
    test_fast_path_contract(&l);
    test_hooks_take_nothing(&l);
    test_callbacks_do_not_nest(m);
    test_many_open(m);

    sb_mediator_free(m);
    return check_report("test_async_callers");
}
