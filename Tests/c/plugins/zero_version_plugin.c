/* A table whose version was never set: refused. */
#include <switchboard.h>

static sb_status noop(void *state, const sb_value *args, sb_value **out) {
    (void)state;
    (void)args;
    *out = sb_null();
    return SB_OK;
}

static const sb_action_def actions[] = {{"noop", noop}, {NULL, NULL}};

const sb_target_def Target_Unset = {0, NULL, NULL, actions, NULL};
