/* A plugin whose action never returns: C code no Lua hook can interrupt,
 * for the watchdog test of `switchboard run`. */
#include <switchboard.h>
#include <unistd.h>

static sb_status forever(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)params;
    (void)out;
    for (;;) {
        if (sleep(1) > 1000) break; /* never: sleep(1) returns 0 or what is left of 1 s */
    }
    return SB_EACTION;
}

static const sb_action_def actions[] = {{"forever", forever}, {NULL, NULL}};
const sb_target_def Target_Stuck = {SB_TARGET_DEF_VERSION, NULL, NULL, actions, NULL};
