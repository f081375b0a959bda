/* Threads contending for the table of open completions, with
 * ThreadSanitizer watching the host (built with it, against the plain
 * library), and no data of the host's shared: the sanitizer must report
 * nothing (TSan exits with 66). A thread that finds the table's lock taken
 * sleeps in the library's parking buckets, which the first such thread
 * makes; the others reach them through a lazy global the sanitizer cannot
 * follow, so the library tells it that they were published (Parking.swift).
 * Without that, most runs reported a race on a bucket's mutex. */
#include "../check.h"
#include <pthread.h>

#define THREADS 4
#define CALLS 20000

static sb_mediator *m;
static __thread sb_completion taken;
static int failures[THREADS];

static sb_status later(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)params, (void)out;
    taken = sb_completion_take();
    return SB_PENDING;
}

static void done(void *ud, sb_status status, sb_value *result) {
    (void)ud, (void)status;
    sb_value_release(result);
}

static void caller_once(int *failed) {
    if (sb_action_perform_async(m, "T", "later", NULL, NULL, done, NULL) != SB_PENDING) ++*failed;
    if (sb_completion_succeed(taken, sb_int(1)) != SB_OK) ++*failed;
}

static void *caller(void *arg) {
    for (int i = 0; i < CALLS; i++) caller_once(arg);
    return NULL;
}

int main(void) {
    m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(m, "T", "later", later, NULL, NULL), SB_OK);
    /* One call first, alone: the Swift runtime inside the library fills
     * its type caches on first use with atomics the sanitizer cannot see
     * either (reported as races of its own, not this test's). */
    int warm = 0;
    caller_once(&warm);
    CHECK(warm == 0);
    pthread_t threads[THREADS];
    for (int k = 0; k < THREADS; k++) pthread_create(&threads[k], NULL, caller, &failures[k]);
    for (int k = 0; k < THREADS; k++) pthread_join(threads[k], NULL);
    for (int k = 0; k < THREADS; k++) CHECK(failures[k] == 0);
    sb_mediator_free(m);
    robustness_row("Threads contend for the table of open completions, the host under ThreadSanitizer, the library "
                   "not: the first to wait makes the parking buckets the others reach through a lazy global",
                   THREADS * CALLS, "every call answered; the library tells the sanitizer the buckets and its locks "
                                    "were published, so no race is reported");
    return check_report("tsan_table_contention");
}
