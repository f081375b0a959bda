/* Hostile: misses answered by NoTargetAction.response on many threads while
 * another thread replaces, removes, re-registers with a contract, registers
 * a class named NoTargetAction, unregisters the target... Each state change
 * is published with a seqlock; a miss that saw no change around it must get
 * exactly the answer of the state in force. Userdata is poisoned on free. */
#include <switchboard.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>

static int64_t check_int(const sb_value *v) { int64_t i = INT64_MIN; if (sb_value_get_int(v, &i) != SB_OK) return INT64_MIN; return i; }

#define LIVE 0x4c495645u
#define DEAD 0xdeadbeefu
#define MEDIATORS 2

typedef struct { unsigned magic; int64_t id; int mediator; } fb_t;

static sb_mediator *ms[MEDIATORS];
static unsigned long seq[MEDIATORS];         /* odd: a change in progress */
static int64_t expect[MEDIATORS];   /* id; -1 ENOTARGET; -2 EPARAMS; >=1e6 class */
static int stop;
static long failures, strict_checks, misses_done, contract_ran;
static int nthreads = 8;
static long seconds = 5;

static void fail(const char *what, long a, long b) {
    if (__atomic_fetch_add(&failures, 1, __ATOMIC_SEQ_CST) < 20) fprintf(stderr, "FAIL %s (%ld, %ld) err=%s\n", what, a, b, sb_error_message());
}

static void free_fb(void *u) {
    fb_t *f = u;
    if (f->magic != LIVE) fail("double free of userdata", (long)f->id, f->magic);
    f->magic = DEAD;
    free(f);
}

static sb_status response(void *u, const sb_value *params, sb_value **out) {
    fb_t *f = u;
    if (f->magic != LIVE) { fail("fallback ran on freed userdata", (long)f->id, f->magic); return SB_EACTION; }
    if (sb_dict_get(params, "originParams") == NULL) fail("no originParams", (long)f->id, 0);
    *out = sb_int(f->id);
    return SB_OK;
}

static sb_status contracted(void *u, const sb_value *params, sb_value **out) {
    (void)params;
    __atomic_fetch_add(&contract_ran, 1, __ATOMIC_SEQ_CST);
    fail("a contracted fallback ran without its param", (long)((fb_t *)u)->id, 0);
    *out = sb_int(-2);
    return SB_OK;
}

static sb_status class_create(void *u, void **state) { (void)u; *state = NULL; return SB_OK; }
static sb_status class_call(void *u, void *state, const char *action, const sb_value *args, sb_value **out) {
    (void)state; (void)action; (void)args;
    fb_t *f = u;
    if (f->magic != LIVE) { fail("class ran on freed userdata", (long)f->id, f->magic); return SB_EACTION; }
    *out = sb_int(f->id);
    return SB_OK;
}

static fb_t *new_fb(int64_t id, int mi) {
    fb_t *f = malloc(sizeof *f);
    f->magic = LIVE; f->id = id; f->mediator = mi;
    return f;
}


static unsigned rnd(unsigned *s) { *s = *s * 1103515245u + 12345u; return (*s >> 16) & 0x7fff; }

/* What the registry of one mediator holds, as the mutator made it. */
typedef struct { int64_t action; /* 0 none, -2 contracted, else id */ int64_t klass; fb_t *plain; fb_t *cls; } model_t;

static int64_t answer(const model_t *md) {
    if (md->action > 0) return md->action;
    if (md->action == -2) return -2;
    if (md->klass > 0) return md->klass;
    return -1;
}

static void change(int mi, int64_t id, unsigned *rs, model_t *md) {
    sb_mediator *m = ms[mi];
    switch (rnd(rs) % 9) {
    case 0: case 1: {
        fb_t *f = new_fb(id, mi);
        if (sb_action_register(m, "NoTargetAction", "response", response, f, free_fb) != SB_OK) fail("register", (long)id, 0);
        md->action = id; md->plain = f;
        break;
    }
    case 2: {
        fb_t *f = new_fb(id, mi);
        if (sb_action_register_contract(m, "NoTargetAction", "response", "need: string", contracted, f, free_fb) != SB_OK)
            fail("register contract", (long)id, 0);
        md->action = -2; md->plain = NULL;
        break;
    }
    case 3: {
        sb_status s = sb_action_unregister(m, "NoTargetAction", "response");
        if (s != (md->action != 0 ? SB_OK : SB_ENOTFOUND)) fail("unregister status", (long)id, s);
        md->action = 0; md->plain = NULL;
        break;
    }
    case 4: {
        sb_status s = sb_target_unregister(m, "NoTargetAction");
        (void)s;
        md->action = 0; md->klass = 0; md->plain = NULL; md->cls = NULL;
        break;
    }
    case 5: {
        if (md->plain != NULL) {
            sb_status s = sb_action_unregister_if(m, "NoTargetAction", "response", response, md->plain);
            if (s != SB_OK) fail("unregister_if", (long)id, s);
            md->action = 0; md->plain = NULL;
        }
        break;
    }
    case 6: {
        static const char *const actions[] = {"response", NULL};
        sb_class_def def = SB_CLASS_DEF_INIT;
        def.actions = actions; def.create = class_create; def.call = class_call;
        fb_t *f = new_fb(1000000000LL + id, mi);
        if (sb_class_register(m, "NoTargetAction", &def, f, free_fb) != SB_OK) fail("class register", (long)id, 0);
        md->klass = f->id; md->cls = f;
        break;
    }
    case 7: {
        if (md->cls != NULL) {
            sb_status s = sb_class_unregister_if(m, "NoTargetAction", md->cls);
            if (s != SB_OK) fail("class_unregister_if", (long)id, s);
            md->klass = 0; md->cls = NULL;
        }
        break;
    }
    default:
        (void)sb_action_register(m, "NoTargetAction", "other", response, new_fb(id, mi), free_fb);
        break;
    }
}

static void *mutator(void *arg) {
    int mi = (int)(long)arg;
    unsigned rs = 12345u + (unsigned)mi;
    int64_t id = 1 + mi * 100000000LL;
    model_t md = {0, 0, NULL, NULL};
    __atomic_store_n(&expect[mi], -1, __ATOMIC_SEQ_CST);
    while (!__atomic_load_n(&stop, __ATOMIC_SEQ_CST)) {
        __atomic_fetch_add(&seq[mi], 1, __ATOMIC_SEQ_CST);
        change(mi, id++, &rs, &md);
        __atomic_store_n(&expect[mi], answer(&md), __ATOMIC_SEQ_CST);
        __atomic_fetch_add(&seq[mi], 1, __ATOMIC_SEQ_CST);
        if (rnd(&rs) % 4 == 0) sched_yield();
    }
    return NULL;
}

static sb_value *shared_params;

static void *misser(void *arg) {
    long t = (long)arg;
    unsigned rs = 777u + (unsigned)t;
    while (!__atomic_load_n(&stop, __ATOMIC_SEQ_CST)) {
        int mi = rnd(&rs) % MEDIATORS;
        unsigned long s1 = __atomic_load_n(&seq[mi], __ATOMIC_SEQ_CST);
        int64_t e = __atomic_load_n(&expect[mi], __ATOMIC_SEQ_CST);
        sb_value *out = NULL;
        const char *target = (rnd(&rs) & 1) ? "Missing" : "AlsoMissing";
        sb_status st = sb_action_perform(ms[mi], target, "x", (rnd(&rs) & 1) ? shared_params : NULL, 0, &out);
        unsigned long s2 = __atomic_load_n(&seq[mi], __ATOMIC_SEQ_CST);
        int64_t got = st == SB_OK ? check_int(out) : (st == SB_ENOTARGET ? -1 : st == SB_EPARAMS ? -2 : -100 - (int64_t)st);
        if (st == SB_OK && got >= 0 && got < 1000000000LL && got / 100000000LL != mi) fail("another mediator's fallback answered", mi, (long)got);
        if (st == SB_OK && got >= 1000000000LL && (got - 1000000000LL) / 100000000LL != mi) fail("another mediator's class answered", mi, (long)got);
        if (s1 == s2 && (s1 & 1) == 0) {
            __atomic_fetch_add(&strict_checks, 1, __ATOMIC_SEQ_CST);
            if (got != e) fail("stale or wrong answer (got, expected)", (long)got, (long)e);
        }
        sb_value_release(out);
        __atomic_fetch_add(&misses_done, 1, __ATOMIC_SEQ_CST);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc > 1) nthreads = atoi(argv[1]);
    if (argc > 2) seconds = atol(argv[2]);
    for (int i = 0; i < MEDIATORS; i++) { ms[i] = sb_mediator_new(); __atomic_store_n(&expect[i], -1, __ATOMIC_SEQ_CST); }
    shared_params = sb_dict_new();
    sb_value *inner = sb_array_new();
    sb_array_append_new(inner, sb_dict_new());
    sb_dict_set_new(shared_params, "deep", inner);
    sb_dict_set_new(shared_params, "n", sb_int(1));
    pthread_t mut[MEDIATORS], th[64];
    for (long i = 0; i < MEDIATORS; i++) pthread_create(&mut[i], NULL, mutator, (void *)i);
    for (long i = 0; i < nthreads; i++) pthread_create(&th[i], NULL, misser, (void *)i);
    struct timespec ts = {seconds, 0};
    nanosleep(&ts, NULL);
    __atomic_store_n(&stop, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < MEDIATORS; i++) pthread_join(mut[i], NULL);
    for (int i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < MEDIATORS; i++) sb_mediator_free(ms[i]);
    sb_value_release(shared_params);
    printf("misses %ld strict %ld contract_ran %ld failures %ld\n", __atomic_load_n(&misses_done, __ATOMIC_SEQ_CST), __atomic_load_n(&strict_checks, __ATOMIC_SEQ_CST),
           __atomic_load_n(&contract_ran, __ATOMIC_SEQ_CST), __atomic_load_n(&failures, __ATOMIC_SEQ_CST));
    /* A run where every miss overlapped a change checked nothing exactly. */
    if (__atomic_load_n(&strict_checks, __ATOMIC_SEQ_CST) < 1000) {
        fprintf(stderr, "miss_race: fewer than 1,000 misses ran without a change during them\n");
        return 1;
    }
    return __atomic_load_n(&failures, __ATOMIC_SEQ_CST) ? 1 : 0;
}
