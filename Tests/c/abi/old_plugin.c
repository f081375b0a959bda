/* A plugin as it was written before 1.0: built against the 0.1 header
 * (switchboard-0.1.h, unchanged), with its table's first member
 * `abi_version` and its contracts in a separate Contracts_<Name> export.
 * It calls only functions whose names 1.0 kept (sb_int, sb_string,
 * sb_dict_new, sb_dict_set, sb_dict_set_new, sb_dict_get), so the new
 * library can still give it every symbol it needs. */
#include "switchboard-0.1.h"
#include <stdlib.h>

/* The size of this table in the 0.1 layout, for the test to compare with
 * the current sb_target_def (which is larger). */
const size_t old_table_size = sizeof(sb_target_def);

static void *old_create(void) {
    int64_t *count = malloc(sizeof *count);
    if (count != NULL) *count = 0;
    return count;
}

static void old_destroy(void *state) { free(state); }

/* Old.next -> 1, 2, 3 ... on a cached instance. */
static sb_status old_next(void *state, const sb_value *args, sb_value **out) {
    (void)args;
    int64_t *count = state;
    *out = sb_int(++*count);
    return SB_OK;
}

/* Old.wrap {n: int} -> {"got": n, "built": "0.1"}: hands back the param it
 * was given (its contract lets only an int through). */
static sb_status old_wrap(void *state, const sb_value *args, sb_value **out) {
    (void)state;
    sb_value *d = sb_dict_new();
    sb_dict_set(d, "got", (sb_value *)sb_dict_get(args, "n"));
    sb_dict_set_new(d, "built", sb_string(SB_VERSION_STRING));
    *out = d;
    return SB_OK;
}

static const sb_action_def old_actions[] = {{"next", old_next}, {"wrap", old_wrap}, {NULL, NULL}};

const sb_target_def Target_Old = {SB_ABI_VERSION, old_create, old_destroy, old_actions};

const sb_contract_def Contracts_Old[] = {{"wrap", "n: int -- handed back\n-> dict"}, {NULL, NULL}};
