/* A plugin that reaches the process it runs in, for the isolation tests of
 * `switchboard run`: a counter in static memory (state a scenario could
 * leave behind), an action that aborts the process, one that tells its id,
 * and one that starts a thread (after which forking is no longer safe).
 * Built with -z nodelete: its thread must outlive dlclose. */
#include <switchboard.h>

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static int64_t count;

static sb_status bump(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)params;
    *out = sb_int(++count);
    return *out != NULL ? SB_OK : SB_ENOMEM;
}

static sb_status crash(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)params;
    (void)out;
    abort();
}

static sb_status pid(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)params;
    *out = sb_int((int64_t)getpid());
    return *out != NULL ? SB_OK : SB_ENOMEM;
}

static void *sleeper(void *unused) {
    (void)unused;
    for (;;) pause();
    return NULL;
}

static sb_status start_thread(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)params;
    pthread_t thread;
    if (pthread_create(&thread, NULL, sleeper, NULL) != 0) return SB_EACTION;
    pthread_detach(thread);
    *out = sb_bool(1);
    return *out != NULL ? SB_OK : SB_ENOMEM;
}

static const sb_action_def actions[] = {
    {"bump", bump}, {"crash", crash}, {"pid", pid}, {"start_thread", start_thread}, {NULL, NULL},
};
const sb_target_def Target_Process = {SB_ABI_VERSION, NULL, NULL, actions};
