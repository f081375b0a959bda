/* A table of a version newer than the library knows: loading it must be
 * refused, with a message saying so. */
#include <switchboard.h>

static sb_status noop(void *state, const sb_value *args, sb_value **out) {
    (void)state;
    (void)args;
    (void)out;
    return SB_OK;
}

static const sb_action_def actions[] = {{"noop", noop}, {NULL, NULL}};

const sb_target_def Target_Future = {42, NULL, NULL, actions, NULL};
