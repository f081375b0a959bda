/* A plugin whose Contracts_ table holds a contract that does not parse. */
#include <switchboard.h>

static sb_status noop(void *state, const sb_value *args, sb_value **out) {
    (void)state;
    (void)args;
    *out = sb_null();
    return SB_OK;
}

static const sb_action_def actions[] = {{"noop", noop}, {NULL, NULL}};

const sb_target_def Target_Typo = {SB_ABI_VERSION, NULL, NULL, actions};
const sb_contract_def Contracts_Typo[] = {{"noop", "n: integer"}, {NULL, NULL}};
