/* Tables of the current header: a version-2 table with its contracts
 * inline, and a version-1 table whose `contracts` member (which version 1
 * does not have) holds a contract that does not parse: the library must
 * not read it, so the plugin loads. */
#include <switchboard.h>

/* Inline.wrap {n: int} -> {"got": n} */
static sb_status wrap(void *state, const sb_value *args, sb_value **out) {
    (void)state;
    sb_value *d = sb_dict_new();
    sb_dict_set(d, "got", (sb_value *)sb_dict_get(args, "n"));
    *out = d;
    return SB_OK;
}

static const sb_action_def actions[] = {{"wrap", wrap}, {NULL, NULL}};

static const sb_contract_def inline_contracts[] = {{"wrap", "n: int -- inline\n-> dict"}, {NULL, NULL}};

const sb_target_def Target_Inline = {.version = SB_TARGET_DEF_VERSION, .actions = actions,
                                     .contracts = inline_contracts};

static const sb_contract_def unread_contracts[] = {{"wrap", "n: no such type"}, {NULL, NULL}};

const sb_target_def Target_Legacy = {1, NULL, NULL, actions, unread_contracts};
