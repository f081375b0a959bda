/* A version-2 table that also exports Contracts_<Name>: two sources for
 * one target's contracts, refused. */
#include <switchboard.h>

static sb_status noop(void *state, const sb_value *args, sb_value **out) {
    (void)state;
    (void)args;
    *out = sb_null();
    return SB_OK;
}

static const sb_action_def actions[] = {{"noop", noop}, {NULL, NULL}};

static const sb_contract_def contracts[] = {{"noop", "n: int"}, {NULL, NULL}};

const sb_target_def Target_Doubled = {SB_TARGET_DEF_VERSION, NULL, NULL, actions, contracts};
const sb_contract_def Contracts_Doubled[] = {{"noop", "n: string"}, {NULL, NULL}};
