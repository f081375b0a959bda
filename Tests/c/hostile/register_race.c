/* Hostile: registration at scale racing calls (issue 39). One thread
 * registers N actions one by one on the target "Big" (100,000 by default)
 * while reader threads call them: an action registered before the call
 * started must answer its own number, from live userdata; one not yet
 * registered fails with SB_ENOACTION or, if registered meanwhile, answers
 * its number. A replacer works behind the registrar on every 7th name:
 * replaces it, removes it, removes and registers it again (it may be absent
 * for a while, never wrong). On "Churn", one thread registers 64 actions
 * over and over while another unregisters the whole target. Userdata is
 * poisoned on free and counted: once the mediator is freed, each was freed
 * exactly once. Prints how long the N registrations took (not judged:
 * timings are scripts/bench.sh's). */
#include <switchboard.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LIVE 0x4c495645u
#define DEAD 0xdeadbeefu
#define CHURN 64

typedef struct { unsigned magic; long id; } ud_t;

static sb_mediator *m;
static long total = 100000;
static int nreaders = 4;
static long published; /* Big's actions a0 .. a(published - 1) are registered */
static int registrar_done, stop;
static long made, freed, failures, calls, strict;

static void fail(const char *what, long a, long b) {
    if (__atomic_fetch_add(&failures, 1, __ATOMIC_SEQ_CST) < 20) fprintf(stderr, "FAIL %s (%ld, %ld) %s\n", what, a, b, sb_error_message());
}

static unsigned rnd(unsigned *s) { *s = *s * 1103515245u + 12345u; return (*s >> 16) & 0x7fff; }
static long rnd_below(unsigned *s, long n) { return (long)(((unsigned long)rnd(s) << 15 | rnd(s)) % (unsigned long)n); }

static ud_t *new_ud(long id) {
    ud_t *u = malloc(sizeof *u);
    if (u == NULL) abort();
    u->magic = LIVE;
    u->id = id;
    __atomic_fetch_add(&made, 1, __ATOMIC_SEQ_CST);
    return u;
}

static void free_ud(void *p) {
    ud_t *u = p;
    if (u->magic != LIVE) fail("userdata freed twice", u->id, (long)u->magic);
    u->magic = DEAD;
    free(u);
    __atomic_fetch_add(&freed, 1, __ATOMIC_SEQ_CST);
}

static sb_status answer(void *p, const sb_value *params, sb_value **out) {
    (void)params;
    ud_t *u = p;
    if (u->magic != LIVE) {
        fail("an action ran on freed userdata", u->id, (long)u->magic);
        return SB_EACTION;
    }
    *out = sb_int(u->id);
    return SB_OK;
}

static sb_status put(const char *target, long i, const char *prefix) {
    char name[32];
    snprintf(name, sizeof name, "%s%ld", prefix, i);
    return sb_action_register(m, target, name, answer, new_ud(i), free_ud);
}

/* Calls target.prefix<i>: its number, or -1 for SB_ENOACTION / SB_ENOTARGET. */
static long call(const char *target, const char *prefix, long i) {
    char name[32];
    snprintf(name, sizeof name, "%s%ld", prefix, i);
    sb_value *out = NULL;
    sb_status st = sb_action_perform(m, target, name, NULL, 0, &out);
    int64_t n = -1;
    if (st == SB_OK && sb_value_get_int(out, &n) != SB_OK) fail("not an int", i, 0);
    if (st != SB_OK && st != SB_ENOACTION && st != SB_ENOTARGET) fail("unexpected status", i, st);
    sb_value_release(out);
    __atomic_fetch_add(&calls, 1, __ATOMIC_SEQ_CST);
    return st == SB_OK ? (long)n : -1;
}

static void *registrar(void *arg) {
    (void)arg;
    for (long i = 0; i < total; i++) {
        if (put("Big", i, "a") != SB_OK) fail("register", i, 0);
        __atomic_store_n(&published, i + 1, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&registrar_done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

/* Works on every 7th name (i % 7 == 3) the registrar has passed. */
static void *replacer(void *arg) {
    (void)arg;
    unsigned rs = 4242u;
    while (!__atomic_load_n(&stop, __ATOMIC_SEQ_CST)) {
        long p = __atomic_load_n(&published, __ATOMIC_ACQUIRE);
        if (p < 7) { sched_yield(); continue; }
        long i = rnd_below(&rs, p / 7) * 7 + 3;
        if (i >= p) continue;
        char name[32];
        snprintf(name, sizeof name, "a%ld", i);
        switch (rnd(&rs) % 3) {
        case 0: if (put("Big", i, "a") != SB_OK) fail("replace", i, 0); break;
        case 1: {
            sb_status st = sb_action_unregister(m, "Big", name);
            if (st != SB_OK && st != SB_ENOTFOUND) fail("unregister", i, st);
            break;
        }
        default:
            (void)sb_action_unregister(m, "Big", name);
            if (put("Big", i, "a") != SB_OK) fail("register again", i, 0);
        }
    }
    return NULL;
}

static void *reader(void *arg) {
    unsigned rs = 99u + (unsigned)(long)arg * 7919u;
    while (!__atomic_load_n(&stop, __ATOMIC_SEQ_CST)) {
        long p = __atomic_load_n(&published, __ATOMIC_ACQUIRE);
        long i = rnd_below(&rs, p + 100);
        long got = call("Big", "a", i);
        if (i < p && i % 7 != 3) {
            __atomic_fetch_add(&strict, 1, __ATOMIC_SEQ_CST);
            if (got != i) fail("a registered action answered wrong (got, i)", got, i);
        } else if (got != -1 && got != i) {
            fail("an action answered another's number (got, i)", got, i);
        }
        long j = rnd_below(&rs, CHURN);
        long churned = call("Churn", "c", j);
        if (churned != -1 && churned != j) fail("a churned action answered wrong (got, j)", churned, j);
    }
    return NULL;
}

static void *churn_register(void *arg) {
    (void)arg;
    while (!__atomic_load_n(&stop, __ATOMIC_SEQ_CST)) {
        for (long j = 0; j < CHURN; j++) {
            if (put("Churn", j, "c") != SB_OK) fail("churn register", j, 0);
        }
    }
    return NULL;
}

static void *churn_unregister(void *arg) {
    (void)arg;
    while (!__atomic_load_n(&stop, __ATOMIC_SEQ_CST)) {
        sb_status st = sb_target_unregister(m, "Churn");
        if (st != SB_OK && st != SB_ENOTFOUND) fail("churn unregister", 0, st);
        sched_yield();
    }
    return NULL;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc > 1) nreaders = atoi(argv[1]);
    if (argc > 2) total = atol(argv[2]);
    if (nreaders < 1 || nreaders > 32 || total < 100) {
        fprintf(stderr, "usage: register_race [READERS (1..32) [ACTIONS (>= 100)]]\n");
        return 2;
    }
    m = sb_mediator_new();
    pthread_t reg, rep, cr, cu, readers[32];
    double started = now();
    pthread_create(&reg, NULL, registrar, NULL);
    pthread_create(&rep, NULL, replacer, NULL);
    pthread_create(&cr, NULL, churn_register, NULL);
    pthread_create(&cu, NULL, churn_unregister, NULL);
    for (long t = 0; t < nreaders; t++) pthread_create(&readers[t], NULL, reader, (void *)t);
    pthread_join(reg, NULL);
    double took = now() - started;
    __atomic_store_n(&stop, 1, __ATOMIC_SEQ_CST);
    pthread_join(rep, NULL);
    pthread_join(cr, NULL);
    pthread_join(cu, NULL);
    for (int t = 0; t < nreaders; t++) pthread_join(readers[t], NULL);

    /* Quiet now: every 7th name back, then every action answers its number. */
    for (long i = 3; i < total; i += 7) {
        if (put("Big", i, "a") != SB_OK) fail("final register", i, 0);
    }
    for (long i = 0; i < total; i++) {
        if (call("Big", "a", i) != i) fail("after the race, an action answered wrong", i, 0);
    }
    if (sb_target_unregister(m, "Big") != SB_OK) fail("unregister Big", 0, 0);
    sb_mediator_free(m);
    long made_n = __atomic_load_n(&made, __ATOMIC_SEQ_CST), freed_n = __atomic_load_n(&freed, __ATOMIC_SEQ_CST);
    if (made_n != freed_n) fail("userdata made and freed differ (made, freed)", made_n, freed_n);
    printf("register_race: %ld registrations on one target in %.2f s with %d readers; calls %ld strict %ld; "
           "userdata %ld made, %ld freed; failures %ld\n", total, took, nreaders,
           __atomic_load_n(&calls, __ATOMIC_SEQ_CST), __atomic_load_n(&strict, __ATOMIC_SEQ_CST), made_n, freed_n,
           __atomic_load_n(&failures, __ATOMIC_SEQ_CST));
    if (__atomic_load_n(&strict, __ATOMIC_SEQ_CST) < 1000) {
        fprintf(stderr, "register_race: fewer than 1,000 calls checked exactly\n");
        return 1;
    }
    return __atomic_load_n(&failures, __ATOMIC_SEQ_CST) ? 1 : 0;
}
