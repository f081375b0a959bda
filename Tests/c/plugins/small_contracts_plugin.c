/* A good version-1 Target_ table with a Contracts_ symbol too small for one entry:
 * refused by the symbol's size, never read past its end. */
#include <switchboard.h>

static sb_status noop(void *state, const sb_value *args, sb_value **out) {
    (void)state;
    (void)args;
    *out = sb_null();
    return SB_OK;
}

static const sb_action_def actions[] = {{"noop", noop}, {NULL, NULL}};

const sb_target_def Target_Small = {1, NULL, NULL, actions, NULL}; /* version 1: `contracts` is not read */
const char Contracts_Small[3] = {0, 0, 0};
