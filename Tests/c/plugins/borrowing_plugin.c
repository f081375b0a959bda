/* A version-1 plugin (no contracts of its own) linking a library that
 * exports Contracts_Borrowing: the library's table is not the plugin's. */
#include <switchboard.h>

static sb_status hello(void *state, const sb_value *args, sb_value **out) {
    (void)state;
    (void)args;
    *out = sb_string("hello");
    return SB_OK;
}

static const sb_action_def actions[] = {{"hello", hello}, {NULL, NULL}};

const sb_target_def Target_Borrowing = {1, NULL, NULL, actions, NULL};
