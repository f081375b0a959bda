/* Hostile: misses that fall back (a degrade rule's target, NoTargetAction,
 * the degrade handler) on several threads while one thread changes each of
 * those (rules set and cleared, the rule's target and NoTargetAction
 * registered, replaced and unregistered, the handler set, replaced and
 * cleared) and adds and removes observers and a proceeding interceptor.
 * Each change is published with a seqlock; a miss that saw no change around
 * it must get exactly the answer of the state in force, as a plan made
 * afresh would. Userdata is poisoned when freed: nothing runs on freed
 * userdata. Arguments: threads, seconds. */
#include <switchboard.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LIVE 0x4c495645u
#define DEAD 0xdeadbeefu

typedef struct { unsigned magic; int64_t id; } ud_t;

static sb_mediator *m;
static unsigned long seq;     /* odd: a change in progress */
static int64_t expected = -1; /* the answer; -1: SB_ENOTARGET */
static int stop;
static long failures, strict_checks, calls_done, changes_done;
static int nthreads = 4;
static long seconds = 3;

static void fail(const char *what, long a, long b) {
    if (__atomic_fetch_add(&failures, 1, __ATOMIC_SEQ_CST) < 20)
        fprintf(stderr, "FAIL %s (%ld, %ld) %s\n", what, a, b, sb_error_message());
}

static unsigned rnd(unsigned *s) { *s = *s * 1103515245u + 12345u; return (*s >> 16) & 0x7fff; }

static void poison(void *u) {
    ud_t *d = u;
    if (d->magic != LIVE) fail("userdata freed twice", (long)d->id, 0);
    d->magic = DEAD;
    free(d);
}
static ud_t *fresh(int64_t id) {
    ud_t *d = malloc(sizeof *d);
    d->magic = LIVE;
    d->id = id;
    return d;
}
static sb_status answer(void *u, const sb_value *p, sb_value **out) {
    ud_t *d = u;
    (void)p;
    if (d->magic != LIVE) { fail("ran on freed userdata", (long)d->id, 0); return SB_EACTION; }
    *out = sb_int(d->id);
    return SB_OK;
}
static int64_t int_of(const sb_value *v) {
    int64_t i = -3;
    return sb_value_get_int(v, &i) == SB_OK ? i : -3;
}

static void watch(void *u, const sb_call_event *e) { (void)u; (void)e; }
static int proceed(void *u, sb_call *c) { (void)u; (void)c; return SB_OK; }

/* What the mutator made: the rule on or off, and who is registered. */
typedef struct { int rule; int64_t r, n, h; } model_t; /* 0: none */

static int64_t answer_of(const model_t *md) {
    if (md->rule && md->r) return md->r;
    if (md->n) return md->n;
    if (md->h) return md->h;
    return -1;
}

static void change(unsigned *rs, int64_t id, model_t *md, uint64_t hooks[2]) {
    switch (rnd(rs) % 10) {
    case 0:
        if (sb_rules_set_json(m, "[{\"target\":\"Miss*\",\"action\":\"*\",\"degrade\":\"R\"}]") != SB_OK) fail("rules", 0, 0);
        md->rule = 1;
        break;
    case 1:
        sb_rules_set_json(m, "[]");
        md->rule = 0;
        break;
    case 2:
        if (sb_action_register(m, "R", "response", answer, fresh(id), poison) != SB_OK) fail("register R", (long)id, 0);
        md->r = id;
        break;
    case 3:
        sb_target_unregister(m, "R");
        md->r = 0;
        break;
    case 4:
        if (sb_action_register(m, "NoTargetAction", "response", answer, fresh(id), poison) != SB_OK) fail("register N", (long)id, 0);
        md->n = id;
        break;
    case 5:
        sb_action_unregister(m, "NoTargetAction", "response");
        md->n = 0;
        break;
    case 6:
        if (sb_degrade_handler_set(m, answer, fresh(id), poison) != SB_OK) fail("handler", (long)id, 0);
        md->h = id;
        break;
    case 7:
        sb_degrade_handler_set(m, NULL, NULL, NULL);
        md->h = 0;
        break;
    case 8:
        if (hooks[0]) { sb_observer_remove(m, hooks[0]); hooks[0] = 0; }
        else sb_observer_add(m, watch, NULL, NULL, &hooks[0]);
        break;
    default:
        if (hooks[1]) { sb_interceptor_remove(m, hooks[1]); hooks[1] = 0; }
        else sb_interceptor_add(m, 0, proceed, NULL, NULL, &hooks[1]);
        break;
    }
}

static void *mutator(void *arg) {
    (void)arg;
    unsigned rs = 31337u;
    int64_t id = 1;
    model_t md = {0, 0, 0, 0};
    uint64_t hooks[2] = {0, 0};
    while (!__atomic_load_n(&stop, __ATOMIC_SEQ_CST)) {
        __atomic_fetch_add(&seq, 1, __ATOMIC_SEQ_CST);
        change(&rs, id++, &md, hooks);
        __atomic_store_n(&expected, answer_of(&md), __ATOMIC_SEQ_CST);
        __atomic_fetch_add(&seq, 1, __ATOMIC_SEQ_CST);
        __atomic_fetch_add(&changes_done, 1, __ATOMIC_SEQ_CST);
        if (rnd(&rs) % 4 == 0) sched_yield();
    }
    return NULL;
}

static void *misser(void *arg) {
    unsigned rs = 555u + (unsigned)(long)arg;
    static const char *const targets[] = {"Miss", "MissToo"};
    while (!__atomic_load_n(&stop, __ATOMIC_SEQ_CST)) {
        unsigned long s1 = __atomic_load_n(&seq, __ATOMIC_SEQ_CST);
        int64_t e = __atomic_load_n(&expected, __ATOMIC_SEQ_CST);
        sb_value *out = NULL;
        sb_status st = sb_action_perform(m, targets[rnd(&rs) & 1], "x", NULL, 0, &out);
        unsigned long s2 = __atomic_load_n(&seq, __ATOMIC_SEQ_CST);
        int64_t got = st == SB_OK ? int_of(out) : st == SB_ENOTARGET ? -1 : -100 - (int64_t)st;
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
    m = sb_mediator_new();
    pthread_t mut, th[32];
    pthread_create(&mut, NULL, mutator, NULL);
    for (long i = 0; i < nthreads; i++) pthread_create(&th[i], NULL, misser, (void *)i);
    struct timespec ts = {seconds, 0};
    nanosleep(&ts, NULL);
    __atomic_store_n(&stop, 1, __ATOMIC_SEQ_CST);
    pthread_join(mut, NULL);
    for (int i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
    sb_mediator_free(m);
    printf("hook_race: calls %ld strict %ld changes %ld failures %ld\n", __atomic_load_n(&calls_done, __ATOMIC_SEQ_CST),
           __atomic_load_n(&strict_checks, __ATOMIC_SEQ_CST), __atomic_load_n(&changes_done, __ATOMIC_SEQ_CST),
           __atomic_load_n(&failures, __ATOMIC_SEQ_CST));
    if (__atomic_load_n(&strict_checks, __ATOMIC_SEQ_CST) < 1000) {
        fprintf(stderr, "hook_race: fewer than 1,000 misses ran without a change during them\n");
        return 1;
    }
    return __atomic_load_n(&failures, __ATOMIC_SEQ_CST) ? 1 : 0;
}
