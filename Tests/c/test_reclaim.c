/* Memory retired by registry changes is released while calls run (issue 27).
 *
 * One call is blocked on a condition (not a sleep) while this thread makes
 * registry changes of every kind: actions, targets, interceptors, observers,
 * rules, the URL policy, route patterns, services. Resident memory must stay
 * flat, then the blocked call returns and every destructor has run exactly
 * once. The blocked call runs in the same mediator, then in another one.
 *
 * $SB_RECLAIM_CHANGES sets the number of changes (default 400000; the
 * valgrind run uses fewer, and checks no resident memory bound then). */
#include "check.h"

#include <pthread.h>
#include <unistd.h>

#define RSS_BOUND (4L << 20)

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int entered, released;
static long made, freed;

static void *token(void) {
    pthread_mutex_lock(&mu);
    made++;
    pthread_mutex_unlock(&mu);
    return malloc(16);
}

static void free_token(void *p) {
    free(p);
    pthread_mutex_lock(&mu);
    freed++;
    pthread_mutex_unlock(&mu);
}

static long freed_now(void) {
    pthread_mutex_lock(&mu);
    long n = freed;
    pthread_mutex_unlock(&mu);
    return n;
}

static long resident_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    if (f == NULL) return 0;
    if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = 0;
    fclose(f);
    return resident * sysconf(_SC_PAGESIZE);
}

/* Waits until the test lets it go. */
static sb_status blocking(void *ud, const sb_value *args, sb_value **out) {
    (void)ud, (void)args;
    pthread_mutex_lock(&mu);
    entered = 1;
    pthread_cond_broadcast(&cv);
    while (!released) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    *out = sb_int(7);
    return SB_OK;
}

static sb_status answer(void *ud, const sb_value *args, sb_value **out) {
    (void)ud, (void)args;
    *out = sb_int(1);
    return SB_OK;
}

static int pass(void *ud, sb_call *call) {
    (void)ud, (void)call;
    return SB_OK;
}

static void watch(void *ud, const sb_call_event *event) {
    (void)ud, (void)event;
}

struct blocked_call {
    sb_mediator *m;
    sb_status status;
    int64_t result;
};

static void *perform_blocking(void *arg) {
    struct blocked_call *call = arg;
    sb_value *out = NULL;
    call->status = sb_action_perform(call->m, "Blocker", "wait", NULL, 0, &out);
    call->result = check_int(out);
    sb_value_release(out);
    return NULL;
}

/* Starts `perform` on a thread of its own and waits until its action blocks. */
static void start_blocked(void *(*perform)(void *), struct blocked_call *call, pthread_t *thread) {
    entered = released = 0;
    CHECK(pthread_create(thread, NULL, perform, call) == 0);
    pthread_mutex_lock(&mu);
    while (!entered) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
}

/* Lets the blocked action go; its call must answer 7. */
static void finish_blocked(pthread_t thread, const struct blocked_call *call) {
    pthread_mutex_lock(&mu);
    released = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK_STATUS(call->status, SB_OK);
    CHECK(call->result == 7);
}

/* One registry change of kind `i % 16`; every second one undoes the one before. */
static void change(sb_mediator *m, long i, sb_value *policy) {
    static uint64_t id;
    char name[32];
    switch (i % 16) {
    case 0: CHECK_STATUS(sb_action_register(m, "Churn", "a", answer, token(), free_token), SB_OK); break;
    case 1: CHECK_STATUS(sb_action_register(m, "Churn", "a", answer, token(), free_token), SB_OK); break;
    case 2: CHECK_STATUS(sb_interceptor_add(m, 0, pass, token(), free_token, &id), SB_OK); break;
    case 3: CHECK_STATUS(sb_interceptor_remove(m, id), SB_OK); break;
    case 4: CHECK_STATUS(sb_observer_add(m, watch, token(), free_token, &id), SB_OK); break;
    case 5: CHECK_STATUS(sb_observer_remove(m, id), SB_OK); break;
    case 6:
        CHECK_STATUS(sb_rules_set_json(m, "[{\"from\":\"Old/*\",\"to\":\"Churn/$1\"}]"), SB_OK);
        break;
    case 7: CHECK_STATUS(sb_rules_set_json(m, "[]"), SB_OK); break;
    case 8: CHECK_STATUS(sb_url_set_policy(m, policy), SB_OK); break;
    case 9: CHECK_STATUS(sb_url_set_policy(m, NULL), SB_OK); break;
    case 10: CHECK_STATUS(sb_url_pattern_add(m, "app://item/:id", "Churn", "a"), SB_OK); break;
    case 11: CHECK_STATUS(sb_url_pattern_remove(m, "app://item/:id"), SB_OK); break;
    case 12:
        CHECK_STATUS(sb_service_define(m, "Answering", "a"), SB_OK);
        CHECK_STATUS(sb_service_bind(m, "Answering", "Churn"), SB_OK);
        break;
    case 13: CHECK_STATUS(sb_service_remove(m, "Answering"), SB_OK); break;
    case 14:
        snprintf(name, sizeof name, "Target%ld", (i / 16) % 64);
        CHECK_STATUS(sb_action_register(m, name, "a", answer, token(), free_token), SB_OK);
        break;
    case 15:
        snprintf(name, sizeof name, "Target%ld", (i / 16) % 64);
        CHECK_STATUS(sb_target_unregister(m, name), SB_OK);
        CHECK_STATUS(sb_action_unregister(m, "Churn", "a"), SB_OK);
        break;
    }
}

/* Makes `changes` changes in `m` while a call in `blocked_in` waits (or with
 * no call in flight when `blocked_in` is NULL). */
static void churn_beside(const char *row, sb_mediator *m, sb_mediator *blocked_in, long changes) {
    sb_value *policy = NULL;
    CHECK_STATUS(sb_json_decode("{\"schemes\": [\"app\"], \"targets\": [\"Churn\"]}", &policy), SB_OK);
    pthread_t thread;
    struct blocked_call call = {blocked_in, SB_OK, 0};
    if (blocked_in) {
        CHECK_STATUS(sb_action_register(blocked_in, "Blocker", "wait", blocking, NULL, NULL), SB_OK);
        start_blocked(perform_blocking, &call, &thread);
    }
    /* Warm up (first allocations of every kind), then measure. */
    for (long i = 0; i < 16 * 64; i++) change(m, i, policy);
    long before = resident_bytes();
    for (long i = 0; i < changes; i++) change(m, i, policy);
    long growth = resident_bytes() - before;
    printf("%s: %ld changes, resident memory %+ld KiB\n", row, changes, growth >> 10);
    if (getenv("SB_RECLAIM_CHANGES") == NULL) {
        if (growth >= RSS_BOUND) fprintf(stderr, "%s: resident memory grew by %ld KiB\n", row, growth >> 10);
        CHECK(growth < RSS_BOUND);
    }
    if (blocked_in) {
        finish_blocked(thread, &call);
        CHECK_STATUS(sb_target_unregister(blocked_in, "Blocker"), SB_OK);
    }
    /* Everything the changes made was undone: every destructor has run once. */
    CHECK(freed_now() == made);
    if (freed_now() != made) fprintf(stderr, "%s: %ld made, %ld freed\n", row, made, freed_now());
    sb_value_release(policy);
}

/* A call blocked 40 levels deep (Level40 calls Level39 ... calls Held):
 * the collector finds what calls hold in a buffer of 32 entries, and in a
 * dictionary past them. Held is unregistered while it runs and the registry
 * churns: its userdata must stay until it returns, then be freed. */
#define DEEP 40
#define HELD_LIVE 0x4c495645u
#define HELD_DEAD 0xdeadbeefu
static unsigned held_magic;
static int held_freed_while_running;
static sb_mediator *deep_m;

static void poison_held(void *ud) { *(unsigned *)ud = HELD_DEAD; }

static sb_status held_wait(void *ud, const sb_value *args, sb_value **out) {
    (void)args;
    blocking(NULL, NULL, out);
    if (*(unsigned *)ud != HELD_LIVE) held_freed_while_running = 1;
    return SB_OK;
}

static sb_status level_down(void *ud, const sb_value *args, sb_value **out) {
    (void)args;
    intptr_t level = (intptr_t)ud;
    char next[32];
    if (level == 1) snprintf(next, sizeof next, "Held");
    else snprintf(next, sizeof next, "Level%ld", (long)level - 1);
    return sb_action_perform(deep_m, next, level == 1 ? "wait" : "down", NULL, 0, out);
}

static void *perform_deep(void *arg) {
    struct blocked_call *call = arg;
    sb_value *out = NULL;
    char top[32];
    snprintf(top, sizeof top, "Level%d", DEEP);
    call->status = sb_action_perform(deep_m, top, "down", NULL, 0, &out);
    call->result = check_int(out);
    sb_value_release(out);
    return NULL;
}

static void blocked_deep(void) {
    sb_mediator *m = deep_m = sb_mediator_new();
    sb_value *policy = NULL;
    CHECK_STATUS(sb_json_decode("{\"schemes\": [\"app\"], \"targets\": [\"Churn\"]}", &policy), SB_OK);
    held_magic = HELD_LIVE;
    CHECK_STATUS(sb_action_register(m, "Held", "wait", held_wait, &held_magic, poison_held), SB_OK);
    for (intptr_t level = 1; level <= DEEP; level++) {
        char name[32];
        snprintf(name, sizeof name, "Level%ld", (long)level);
        CHECK_STATUS(sb_action_register(m, name, "down", level_down, (void *)level, NULL), SB_OK);
    }
    struct blocked_call call = {m, SB_OK, 0};
    pthread_t thread;
    start_blocked(perform_deep, &call, &thread);
    CHECK_STATUS(sb_target_unregister(m, "Held"), SB_OK);
    for (long i = 0; i < 16 * 64; i++) change(m, i, policy);
    finish_blocked(thread, &call);
    CHECK(!held_freed_while_running);
    sb_mediator_free(m);
    CHECK(held_magic == HELD_DEAD); /* freed once the call returned, at the latest with its mediator */
    sb_value_release(policy);
}

int main(void) {
    const char *text = getenv("SB_RECLAIM_CHANGES");
    long changes = text ? atol(text) : 400000;
    if (changes < 16) changes = 16;
    changes -= changes % 16;

    sb_mediator *m = sb_mediator_new();
    sb_mediator *other = sb_mediator_new();
    churn_beside("no call in flight", m, NULL, changes);
    /* Another mediator first: memory the same-mediator row frees would be
     * reused and hide growth in a row after it. */
    churn_beside("one call blocked in another mediator", m, other, changes);
    churn_beside("one call blocked in the same mediator", m, m, changes);
    blocked_deep();
    sb_mediator_free(m);
    sb_mediator_free(other);
    CHECK(freed_now() == made);
    return check_report("reclaim");
}
