/* What a completer's thread writes before it completes a queued call is
 * seen by that call's `done`, on the queue's thread, with ThreadSanitizer
 * watching the host (built with it, against the plain library). The queue's
 * lock is a futex word, whose atomics the sanitizer cannot see in an
 * uninstrumented library: the library tells it of each taking and giving
 * (lock.h), or this reports a race in correct code (TSan exits with 66).
 * The loop dispatches without waiting on the descriptor, whose read and
 * write the sanitizer would also take for the hand-off. */
#include "../check.h"
#include <pthread.h>
#include <sched.h>

static int payload; /* written by the completer, read by done */
static int seen;
static sb_completion taken;
static sb_status completed; /* read after the join: check.h counts on one thread */

static sb_status later(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)params, (void)out;
    taken = sb_completion_take();
    return SB_PENDING;
}

static void *complete(void *arg) {
    (void)arg;
    payload = 42;
    completed = sb_completion_succeed(taken, sb_int(1));
    return NULL;
}

static void done(void *ud, sb_status status, sb_value *result) {
    (void)ud;
    CHECK_STATUS(status, SB_OK);
    seen = payload;
    sb_value_release(result);
}

int main(void) {
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(m, "T", "later", later, NULL, NULL), SB_OK);
    sb_queue *q = NULL;
    CHECK_STATUS(sb_queue_new(&q), SB_OK);
    sb_call_options o = SB_CALL_OPTIONS_INIT;
    o.queue = q;
    for (int i = 0; i < 50; i++) {
        seen = 0;
        CHECK_STATUS(sb_action_perform_async(m, "T", "later", NULL, &o, done, NULL), SB_PENDING);
        pthread_t t;
        pthread_create(&t, NULL, complete, NULL);
        size_t ran = 0;
        while (ran == 0) {
            sb_queue_dispatch(q, 1, &ran);
            sched_yield();
        }
        CHECK(seen == 42);
        pthread_join(t, NULL);
        CHECK_STATUS(completed, SB_OK);
        payload = 0;
    }
    sb_queue_free(q);
    sb_mediator_free(m);
    robustness_row("A completer writes the host's data, then completes a queued call; its done reads the data on the "
                   "loop's thread, the host under ThreadSanitizer, the library not (its queue's lock is a futex word)",
                   50, "done sees the data; the library tells the sanitizer of each taking and giving of its lock, so "
                       "no race is reported");
    return check_report("tsan_queue_handoff");
}
