/* Hostile: 256 pairs whose keys share one bucket of each mediator's plan
 * cache (names crafted with the deterministic hash seed), on two mediators,
 * called by several threads through sb_action_perform, SB_NO_FALLBACK and
 * shared prepared routes, while a thread per mediator replaces, unregisters
 * and re-registers the targets, and another adds and removes an observer
 * (every call then takes the hooked path). Every slot of the bucket is
 * replaced all the time. Each target's state is published with a seqlock;
 * a call that saw no change of its target around it must get exactly that
 * state's answer (its mediator's, its target's, its version), as a plan
 * made afresh would. Arguments: threads, seconds. */
#include "../check.h"
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MEDIATORS 2
#define PAIRS 256

static sb_mediator *ms[MEDIATORS];
static sb_route *routes[MEDIATORS][PAIRS];
static char names[PAIRS][16];
static unsigned long seq[MEDIATORS][PAIRS];  /* odd: a change in progress */
static int64_t expect[MEDIATORS][PAIRS];     /* the answer; -1: SB_ENOTARGET */
static int stop;
static long failures, strict_checks, calls_done, changes_done;
static int nthreads = 6;
static long seconds = 3;

static void fail(const char *what, long a, long b) {
    if (__atomic_fetch_add(&failures, 1, __ATOMIC_SEQ_CST) < 20)
        fprintf(stderr, "FAIL %s (%ld, %ld) %s\n", what, a, b, sb_error_message());
}

static unsigned rnd(unsigned *s) { *s = *s * 1103515245u + 12345u; return (*s >> 16) & 0x7fff; }

/* The library's name hash and plan-cache bucket with the deterministic
 * seed (Registry/Name.swift FNV1a, Calls/PlanCache.swift). */
static uint64_t name_hash(const char *s) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return (h ^ (h >> 32)) * 0x9e3779b97f4a7c15ULL;
}
static unsigned bucket(const char *target, const char *action) {
    uint64_t key = (name_hash(target) * 0x9E3779B97F4A7C15ULL) ^ name_hash(action);
    return (unsigned)((key ^ (key >> 29)) % 128);
}

static sb_status answer(void *u, const sb_value *p, sb_value **out) {
    (void)p;
    *out = sb_int((int64_t)(intptr_t)u);
    return SB_OK;
}

static void watch(void *u, const sb_call_event *e) { (void)u; (void)e; }

static void *mutator(void *arg) {
    int mi = (int)(long)arg;
    unsigned rs = 4242u + (unsigned)mi;
    int64_t version = 1;
    while (!__atomic_load_n(&stop, __ATOMIC_SEQ_CST)) {
        int k = rnd(&rs) % PAIRS;
        int64_t value = mi * 1000000000LL + k * 100000LL + (version++ % 100000);
        __atomic_fetch_add(&seq[mi][k], 1, __ATOMIC_SEQ_CST);
        switch (rnd(&rs) % 4) {
        case 0: /* gone */
            if (__atomic_load_n(&expect[mi][k], __ATOMIC_SEQ_CST) != -1 && sb_target_unregister(ms[mi], names[k]) != SB_OK)
                fail("unregister", mi, k);
            __atomic_store_n(&expect[mi][k], -1, __ATOMIC_SEQ_CST);
            break;
        case 1: /* gone and back at once: two changes inside one */
            sb_target_unregister(ms[mi], names[k]);
            /* fall through */
        default:
            if (sb_action_register(ms[mi], names[k], "go", answer, (void *)(intptr_t)value, NULL) != SB_OK)
                fail("register", mi, k);
            __atomic_store_n(&expect[mi][k], value, __ATOMIC_SEQ_CST);
            break;
        }
        __atomic_fetch_add(&seq[mi][k], 1, __ATOMIC_SEQ_CST);
        __atomic_fetch_add(&changes_done, 1, __ATOMIC_SEQ_CST);
        if (rnd(&rs) % 8 == 0) sched_yield();
    }
    return NULL;
}

static void *hooker(void *arg) {
    (void)arg;
    unsigned rs = 99u;
    while (!__atomic_load_n(&stop, __ATOMIC_SEQ_CST)) {
        int mi = rnd(&rs) % MEDIATORS;
        uint64_t id = 0;
        if (sb_observer_add(ms[mi], watch, NULL, NULL, &id) != SB_OK) fail("observer_add", mi, 0);
        sched_yield();
        if (sb_observer_remove(ms[mi], id) != SB_OK) fail("observer_remove", mi, 0);
        sched_yield();
    }
    return NULL;
}

static void *caller(void *arg) {
    unsigned rs = 777u + (unsigned)(long)arg;
    while (!__atomic_load_n(&stop, __ATOMIC_SEQ_CST)) {
        int mi = rnd(&rs) % MEDIATORS, k = rnd(&rs) % PAIRS, how = rnd(&rs) % 3;
        unsigned long s1 = __atomic_load_n(&seq[mi][k], __ATOMIC_SEQ_CST);
        int64_t e = __atomic_load_n(&expect[mi][k], __ATOMIC_SEQ_CST);
        sb_value *out = NULL;
        sb_status st = how == 0 ? sb_action_perform(ms[mi], names[k], "go", NULL, 0, &out)
                     : how == 1 ? sb_action_perform(ms[mi], names[k], "go", NULL, SB_NO_FALLBACK, &out)
                                : sb_route_call(routes[mi][k], NULL, &out);
        unsigned long s2 = __atomic_load_n(&seq[mi][k], __ATOMIC_SEQ_CST);
        int64_t got = st == SB_OK ? check_int(out) : st == SB_ENOTARGET ? -1 : -100 - (int64_t)st;
        if (got >= 0 && (got / 1000000000LL != mi || (got / 100000LL) % 10000 != k))
            fail("another pair's answer (mediator, got)", mi, (long)got);
        if (s1 == s2 && (s1 & 1) == 0) {
            __atomic_fetch_add(&strict_checks, 1, __ATOMIC_SEQ_CST);
            if (got != e) fail("stale or wrong answer (got, expected)", (long)got, (long)e);
        }
        sb_value_release(out);
        __atomic_fetch_add(&calls_done, 1, __ATOMIC_SEQ_CST);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc > 1) nthreads = atoi(argv[1]);
    if (argc > 2) seconds = atol(argv[2]);
    if (nthreads > 32) nthreads = 32;
    /* Before the library's first name hash: its seed is drawn then. */
    setenv("SWIFT_DETERMINISTIC_HASHING", "1", 1);
    int found = 0;
    for (long n = 0; found < PAIRS && n < 10000000; n++) {
        char name[16];
        snprintf(name, sizeof name, "P%ld", n);
        if (bucket(name, "go") == 5) memcpy(names[found++], name, sizeof name);
    }
    for (int mi = 0; mi < MEDIATORS; mi++) {
        ms[mi] = sb_mediator_new();
        for (int k = 0; k < PAIRS; k++) {
            int64_t value = mi * 1000000000LL + k * 100000LL;
            sb_action_register(ms[mi], names[k], "go", answer, (void *)(intptr_t)value, NULL);
            expect[mi][k] = value;
            if (sb_route_prepare(ms[mi], names[k], "go", 0, &routes[mi][k]) != SB_OK) fail("route_prepare", mi, k);
        }
    }
    pthread_t mut[MEDIATORS], hook, th[32];
    for (long i = 0; i < MEDIATORS; i++) pthread_create(&mut[i], NULL, mutator, (void *)i);
    pthread_create(&hook, NULL, hooker, NULL);
    for (long i = 0; i < nthreads; i++) pthread_create(&th[i], NULL, caller, (void *)i);
    struct timespec ts = {seconds, 0};
    nanosleep(&ts, NULL);
    __atomic_store_n(&stop, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < MEDIATORS; i++) pthread_join(mut[i], NULL);
    pthread_join(hook, NULL);
    for (int i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
    for (int mi = 0; mi < MEDIATORS; mi++) {
        for (int k = 0; k < PAIRS; k++) sb_route_free(routes[mi][k]);
        sb_mediator_free(ms[mi]);
    }
    printf("plan_thrash: %d pairs in one bucket, calls %ld strict %ld changes %ld failures %ld\n", found,
           __atomic_load_n(&calls_done, __ATOMIC_SEQ_CST), __atomic_load_n(&strict_checks, __ATOMIC_SEQ_CST),
           __atomic_load_n(&changes_done, __ATOMIC_SEQ_CST), __atomic_load_n(&failures, __ATOMIC_SEQ_CST));
    if (found < PAIRS || __atomic_load_n(&strict_checks, __ATOMIC_SEQ_CST) < 1000) {
        fprintf(stderr, "plan_thrash: too few colliding names or exact checks\n");
        return 1;
    }
    return __atomic_load_n(&failures, __ATOMIC_SEQ_CST) ? 1 : 0;
}
