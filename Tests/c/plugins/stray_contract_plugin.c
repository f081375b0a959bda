/* A version-1 table (as plugins built before 1.0 have) whose separate
 * Contracts_ table names an action its target lacks. */
#include <switchboard.h>

static sb_status noop(void *state, const sb_value *args, sb_value **out) {
    (void)state;
    (void)args;
    *out = sb_null();
    return SB_OK;
}

static const sb_action_def actions[] = {{"noop", noop}, {NULL, NULL}};

const sb_target_def Target_Stray = {1, NULL, NULL, actions, NULL}; /* version 1: `contracts` is not read */
const sb_contract_def Contracts_Stray[] = {{"nope", "n: int"}, {NULL, NULL}};
