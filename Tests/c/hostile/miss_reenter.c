/* Hostile: the fallback changes its own registration while answering:
 * unregisters itself, re-registers a new one (whose userdata the old one's
 * free poisons), registers a contract over itself, registers a class named
 * NoTargetAction, unregisters the whole target; on several threads at once.
 * Freed userdata is poisoned: any later call on it is reported. */
#include <switchboard.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define LIVE 0x4c495645u
#define DEAD 0xdeadbeefu
typedef struct { unsigned magic; long id; } fb_t;

static sb_mediator *m;
static long failures, ids, calls;
static long rounds = 20000;
static int single;

static void fail(const char *what, long a) {
    if (__atomic_fetch_add(&failures, 1, __ATOMIC_SEQ_CST) < 20) fprintf(stderr, "FAIL %s (%ld) %s\n", what, a, sb_error_message());
}
static void free_fb(void *u) {
    fb_t *f = u;
    if (f->magic != LIVE) fail("double free", f->id);
    f->magic = DEAD;
    free(f);
}
static fb_t *fresh(void) { fb_t *f = malloc(sizeof *f); f->magic = LIVE; f->id = __atomic_fetch_add(&ids, 1, __ATOMIC_SEQ_CST); return f; }

static sb_status contracted(void *u, const sb_value *p, sb_value **out) {
    (void)p; (void)out;
    fail("contracted fallback ran without its param", ((fb_t *)u)->id);
    return SB_EACTION;
}
static sb_status cls_create(void *u, void **st) { (void)u; *st = NULL; return SB_OK; }
static sb_status cls_call(void *u, void *st, const char *a, const sb_value *args, sb_value **out) {
    (void)st; (void)a; (void)args;
    if (((fb_t *)u)->magic != LIVE) fail("class on freed userdata", 0);
    *out = sb_int(-7);
    return SB_OK;
}

static sb_status response(void *u, const sb_value *params, sb_value **out);

static void reregister(void) {
    if (sb_action_register(m, "NoTargetAction", "response", response, fresh(), free_fb) != SB_OK) fail("re-register", 0);
}

static sb_status response(void *u, const sb_value *params, sb_value **out) {
    fb_t *f = u;
    if (f->magic != LIVE) { fail("fallback on freed userdata", (long)f->magic); return SB_EACTION; }
    long n = __atomic_fetch_add(&calls, 1, __ATOMIC_SEQ_CST);
    switch (n % 11) {
    case 0: /* unregister itself, then use its userdata (kept alive until we return) */
        (void)sb_action_unregister_if(m, "NoTargetAction", "response", response, f);
        if (f->magic != LIVE) fail("userdata freed while its call runs", f->id);
        reregister();
        break;
    case 1: /* replace itself */
        reregister();
        if (f->magic != LIVE) fail("userdata freed while its call runs (replaced)", f->id);
        break;
    case 2: /* a contract over itself, then back */
        (void)sb_action_register_contract(m, "NoTargetAction", "response", "need: string", contracted, fresh(), free_fb);
        { sb_value *o = NULL; sb_status s = sb_action_perform(m, "Nested", "x", NULL, 0, &o);
          if (single && s != SB_EPARAMS) fail("a miss under a contracted fallback did not fail its contract", s);
          sb_value_release(o); }
        reregister();
        break;
    case 3: { /* a class named NoTargetAction; the registered action still answers first */
        static const char *const acts[] = {"response", NULL};
        sb_class_def d = SB_CLASS_DEF_INIT; d.actions = acts; d.create = cls_create; d.call = cls_call;
        (void)sb_class_register(m, "NoTargetAction", &d, fresh(), free_fb);
        break;
    }
    case 4: /* the whole target, and a miss then: class gone too -> ENOTARGET unless another thread re-registered */
        (void)sb_target_unregister(m, "NoTargetAction");
        if (f->magic != LIVE) fail("userdata freed while its call runs (target)", f->id);
        reregister();
        break;
    case 5: { /* a nested miss from inside the fallback */
        sb_value *o = NULL;
        (void)sb_action_perform(m, "Nested", "y", sb_dict_get(params, "originParams"), 0, &o);
        sb_value_release(o);
        break;
    }
    default: break;
    }
    *out = sb_int(f->id);
    return SB_OK;
}

static void *worker(void *arg) {
    (void)arg;
    sb_value *p = sb_dict_new();
    sb_dict_set_new(p, "a", sb_array_new());
    for (long r = 0; r < rounds; r++) {
        sb_value *o = NULL;
        sb_status s = sb_action_perform(m, "Missing", "x", p, 0, &o);
        if (s == SB_OK) {
            (void)o;
        } else if (s != SB_ENOTARGET && s != SB_EPARAMS) fail("status", s);
        sb_value_release(o);
        if (s == SB_ENOTARGET || s == SB_EPARAMS) reregister();
    }
    sb_value_release(p);
    return NULL;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 4;
    if (argc > 2) rounds = atol(argv[2]);
    single = n == 1;
    m = sb_mediator_new();
    reregister();
    pthread_t th[64];
    for (long i = 0; i < n; i++) pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
    sb_mediator_free(m);
    printf("calls %ld failures %ld\n", __atomic_load_n(&calls, __ATOMIC_SEQ_CST), __atomic_load_n(&failures, __ATOMIC_SEQ_CST));
    return __atomic_load_n(&failures, __ATOMIC_SEQ_CST) ? 1 : 0;
}
