/* A plugin built against another ABI: loading it must be refused. */
#include <switchboard.h>

static sb_status noop(void *state, const sb_value *args, sb_value **out) {
    (void)state;
    (void)args;
    (void)out;
    return SB_OK;
}

static const sb_action_def actions[] = {{"noop", noop}, {NULL, NULL}};

const sb_target_def Target_Future = {SB_ABI_VERSION + 41, NULL, NULL, actions};
