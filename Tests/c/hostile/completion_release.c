/* Hostile: what a completed call kept (its unregistered action's userdata,
 * a class instance) is let go by a later entry into the library, never
 * inside the sb_completion_succeed that completes the call (switchboard.h),
 * however the `done` run there behaves. Each thread, each round, on a
 * mediator of its own: three pending calls (an action target twice, a class
 * instance once), both targets unregistered; the first completed with
 * sb_completion_succeed, whose `done` enters the library many times,
 * completes the second (nested: its delivery runs after this one), has an
 * action complete the third, sometimes sleeps, and frees the mediator.
 * Other threads do the same meanwhile, so one thread's collections race
 * another's completions (the completion's reference let go by one thread
 * left the registry's retired one last, for the completing thread's `done`
 * to let go: 0-16 of 32,000 rounds when the completion let go before its
 * delivery). The action's userdata, kept by the first call, must never be
 * let go inside that call's completion; what the other two calls kept may
 * be, by the entries of `done` run after theirs. Every userdata and
 * instance is let go exactly once, all by the end.
 * Arguments: threads (default 8), rounds (default 500; make hostile: 2000). */
#define _POSIX_C_SOURCE 200809L
#include <switchboard.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ALIVE 0x5eed

struct userdata {
    int alive;
    int first_call; /* the action's: kept by the round's first call */
    int *thread;    /* the thread and round that made it */
    int round;
};

static long made, freed, freed_inside, freed_twice, creates, destroys, dones, wrong;
static __thread int in_succeed, me, this_round;
static __thread sb_completion taken[3];
static __thread int taken_count;
static __thread sb_completion third;
static __thread sb_mediator *own;
static __thread unsigned seed;
static sb_mediator *shared;

static void count(long *counter) { __atomic_fetch_add(counter, 1, __ATOMIC_SEQ_CST); }
static long read_count(long *counter) { return __atomic_load_n(counter, __ATOMIC_SEQ_CST); }

static void free_userdata(void *ud) {
    struct userdata *u = ud;
    if (u->alive != ALIVE) {
        count(&freed_twice);
        return;
    }
    u->alive = 0;
    count(&freed);
    if (in_succeed && u->first_call && u->thread == &me && u->round == this_round) count(&freed_inside);
    free(u);
}

static struct userdata *new_userdata(int first_call) {
    struct userdata *u = malloc(sizeof *u);
    u->alive = ALIVE;
    u->first_call = first_call;
    u->thread = &me;
    u->round = this_round;
    count(&made);
    return u;
}

static sb_status defers(void *ud, const sb_value *params, sb_value **out) {
    (void)params, (void)out;
    if (((struct userdata *)ud)->alive != ALIVE) count(&wrong);
    taken[taken_count++] = sb_completion_take();
    return SB_PENDING;
}

static sb_status plain(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)params;
    *out = sb_int(1);
    return SB_OK;
}

/* Completes this thread's third call from inside an action. */
static sb_status completes_third(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)params;
    if (sb_completion_succeed(third, sb_int(3)) != SB_OK) count(&wrong);
    *out = sb_int(0);
    return SB_OK;
}

static const char *const class_actions[] = {"go", NULL};
static sb_status class_create(void *ud, void **state) {
    (void)ud;
    count(&creates);
    *state = malloc(1);
    return SB_OK;
}
static sb_status class_call(void *ud, void *state, const char *action, const sb_value *params, sb_value **out) {
    (void)state, (void)action;
    return defers(ud, params, out);
}
static void class_destroy(void *ud, void *state) {
    (void)ud;
    free(state);
    count(&destroys);
}

static void enter_many(void) {
    for (int i = 0; i < 20; i++) {
        sb_value *out = NULL;
        sb_action_perform(shared, "P", "plain", NULL, 0, &out);
        sb_value_release(out);
    }
    sb_mediator *other = sb_mediator_new();
    sb_action_register(other, "X", "y", plain, NULL, NULL);
    sb_mediator_free(other);
}

static void other_done(void *ud, sb_status status, sb_value *result) {
    (void)ud;
    sb_value_release(result);
    count(&dones);
    if (status != SB_OK) count(&wrong);
    enter_many();
}

/* As other_done, then completes the round's other two calls. */
static void first_done(void *ud, sb_status status, sb_value *result) {
    other_done(ud, status, result);
    if (sb_completion_succeed(taken[1], sb_int(2)) != SB_OK) count(&wrong);
    third = taken[2];
    sb_value *out = NULL;
    sb_action_perform(shared, "P", "third", NULL, 0, &out);
    sb_value_release(out);
    seed = seed * 1103515245u + 12345u;
    if ((seed >> 16) % 8 == 0) {
        struct timespec pause = {0, 200 * 1000};
        nanosleep(&pause, NULL);
    }
    sb_mediator_free(own);
    own = NULL;
    enter_many();
}

static int rounds;

static void *thread(void *arg) {
    seed = (unsigned)(size_t)arg;
    for (int r = 0; r < rounds; r++) {
        own = sb_mediator_new();
        taken_count = 0;
        this_round = r;
        sb_action_register(own, "A", "go", defers, new_userdata(1), free_userdata);
        sb_class_def def = SB_CLASS_DEF_INIT;
        def.actions = class_actions;
        def.create = class_create;
        def.call = class_call;
        def.destroy = class_destroy;
        sb_class_register(own, "C", &def, new_userdata(0), free_userdata);
        if (sb_action_perform_async(own, "A", "go", NULL, NULL, first_done, NULL) != SB_PENDING) count(&wrong);
        if (sb_action_perform_async(own, "C", "go", NULL, NULL, other_done, NULL) != SB_PENDING) count(&wrong);
        if (sb_action_perform_async(own, "A", "go", NULL, NULL, other_done, NULL) != SB_PENDING) count(&wrong);
        sb_target_unregister(own, "A");
        sb_target_unregister(own, "C");
        in_succeed = 1;
        if (sb_completion_succeed(taken[0], sb_int(1)) != SB_OK) count(&wrong);
        in_succeed = 0;
        sb_value *out = NULL;
        sb_action_perform(shared, "P", "plain", NULL, 0, &out);
        sb_value_release(out);
    }
    return NULL;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 8;
    rounds = argc > 2 ? atoi(argv[2]) : 500;
    if (threads < 1 || threads > 64 || rounds < 1) return 2;
    shared = sb_mediator_new();
    sb_action_register(shared, "P", "plain", plain, NULL, NULL);
    sb_action_register(shared, "P", "third", completes_third, NULL, NULL);
    pthread_t t[64];
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, thread, (void *)(size_t)(i + 1));
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    /* Entries from this thread let go of what is left. */
    for (int i = 0; i < 2000 && (read_count(&freed) < read_count(&made) || read_count(&destroys) < read_count(&creates)); i++) {
        sb_mediator *other = sb_mediator_new();
        sb_mediator_free(other);
        struct timespec pause = {0, 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    sb_mediator_free(shared);
    long expected = (long)threads * rounds * 3;
    int ok = dones == expected && freed == made && freed_inside == 0 && freed_twice == 0 && creates == destroys &&
             wrong == 0;
    printf("completion_release: %d threads x %d rounds: done %ld/%ld, userdata %ld/%ld let go (%ld inside "
           "the completion of the call that kept it, %ld twice), instances %ld/%ld, wrong %ld: %s\n",
           threads, rounds, dones, expected, freed, made, freed_inside, freed_twice, destroys, creates,
           wrong, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
