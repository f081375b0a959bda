/* A plugin whose table holds a contract that does not parse. */
#include <switchboard.h>

static sb_status noop(void *state, const sb_value *args, sb_value **out) {
    (void)state;
    (void)args;
    *out = sb_null();
    return SB_OK;
}

static const sb_action_def actions[] = {{"noop", noop}, {NULL, NULL}};

static const sb_contract_def contracts[] = {{"noop", "n: integer"}, {NULL, NULL}};

const sb_target_def Target_Typo = {SB_TARGET_DEF_VERSION, NULL, NULL, actions, contracts};
