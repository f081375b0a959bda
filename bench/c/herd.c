/*
 * Calls waiting on actions that answer later (issue 21): N threads each wait
 * in sb_action_perform on an action that takes its completion and returns
 * SB_PENDING; once all wait, one thread completes them in turn, one every
 * 200 µs (answers that come over time, as from a network). Prints one JSON
 * object per N: the time from the first completion to the last caller
 * joined, against the floor of N gaps. When every completion woke every
 * waiter, the time past the floor grew with N squared (1,000 waiters: 2.8 to
 * 3.8 s against a floor of 0.2 s); it should grow with N.
 *
 *     herd N...
 */
#include <switchboard.h>

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define GAP_NS 200000

static sb_mediator *mediator;
static sb_completion *taken;
static int count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static sb_status answer_later(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)params;
    (void)out;
    sb_completion c = sb_completion_take();
    pthread_mutex_lock(&lock);
    taken[count++] = c;
    pthread_mutex_unlock(&lock);
    return SB_PENDING;
}

static void *caller(void *unused) {
    (void)unused;
    sb_value *out = NULL;
    if (sb_action_perform(mediator, "Later", "answer", NULL, 0, &out) != SB_OK) {
        fprintf(stderr, "herd: %s\n", sb_error_message());
        exit(1);
    }
    sb_value_release(out);
    return NULL;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double run(int n) {
    count = 0;
    taken = calloc((size_t)n, sizeof *taken);
    pthread_t *threads = calloc((size_t)n, sizeof *threads);
    if (taken == NULL || threads == NULL) exit(1);
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, 256 * 1024);
    for (int i = 0; i < n; i++) {
        if (pthread_create(&threads[i], &attributes, caller, NULL) != 0) exit(1);
    }
    for (int waiting = 0; waiting < n; sched_yield()) {
        pthread_mutex_lock(&lock);
        waiting = count;
        pthread_mutex_unlock(&lock);
    }
    double started = now();
    for (int i = 0; i < n; i++) {
        sb_completion_succeed(taken[i], sb_int(i));
        struct timespec gap = {0, GAP_NS};
        nanosleep(&gap, NULL);
    }
    for (int i = 0; i < n; i++) pthread_join(threads[i], NULL);
    double seconds = now() - started;
    pthread_attr_destroy(&attributes);
    free(threads);
    free(taken);
    return seconds;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: herd N...\n");
        return 64;
    }
    mediator = sb_mediator_new();
    if (mediator == NULL || sb_action_register(mediator, "Later", "answer", answer_later, NULL, NULL) != SB_OK) return 1;
    for (int i = 1; i < argc; i++) {
        int n = atoi(argv[i]);
        if (n < 1) return 64;
        double seconds = run(n);
        double floor = (double)n * GAP_NS / 1e9;
        printf("{\"id\": \"async.herd.%d\", \"waiters\": %d, \"seconds\": %.4f, \"floor_s\": %.4f, "
               "\"us_per_waiter_past_floor\": %.2f}\n", n, n, seconds, floor, (seconds - floor) * 1e6 / n);
        fflush(stdout);
    }
    sb_mediator_free(mediator);
    return 0;
}
