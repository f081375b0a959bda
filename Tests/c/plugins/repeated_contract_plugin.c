/* A contract table naming one action twice: refused, as a service
 * interface declaring an action twice is (which entry would hold?). */
#include <switchboard.h>

static sb_status noop(void *state, const sb_value *args, sb_value **out) {
    (void)state;
    (void)args;
    *out = sb_null();
    return SB_OK;
}

static const sb_action_def actions[] = {{"noop", noop}, {NULL, NULL}};

static const sb_contract_def contracts[] = {{"noop", "-> any"}, {"noop", "-> int"}, {NULL, NULL}};

const sb_target_def Target_Repeated = {SB_TARGET_DEF_VERSION, NULL, NULL, actions, contracts};
