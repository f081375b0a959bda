/* A plugin whose action answers later from a thread of its own, and whose
 * thread goes on running the plugin's code after it completed the call
 * (sb_completion_succeed returns into this file, then it works a little
 * more). If the library unloaded the plugin once its mediator was freed,
 * that thread would return into unmapped code: Tests/c/test_lifecycle.c. */
#include <switchboard.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

static volatile uint64_t work_done;

/* Plugin code that runs for a while after the completion. */
static void linger(void) {
    struct timespec pause = {0, 200000}; /* 0.2 ms, several times */
    for (int i = 0; i < 20; i++) {
        nanosleep(&pause, NULL);
        work_done++;
    }
}

static void *complete_then_linger(void *arg) {
    sb_completion c = (sb_completion)(uintptr_t)arg;
    sb_completion_succeed(c, sb_int(42));
    linger();
    return NULL;
}

static sb_status work(void *state, const sb_value *params, sb_value **out) {
    (void)state, (void)params, (void)out;
    sb_completion c = sb_completion_take();
    pthread_t thread;
    if (c == 0 || pthread_create(&thread, NULL, complete_then_linger, (void *)(uintptr_t)c) != 0) {
        if (c != 0) sb_completion_fail(c, SB_ENOMEM, "no thread");
        return c != 0 ? SB_PENDING : SB_EACTION;
    }
    pthread_detach(thread);
    return SB_PENDING;
}

static const sb_action_def actions[] = {{"work", work}, {NULL, NULL}};
const sb_target_def Target_Lingering = {SB_TARGET_DEF_VERSION, NULL, NULL, actions, NULL};
