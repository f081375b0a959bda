/* A table from a header newer than the library: one version more, with a
 * member this library does not know. Refused, with a message saying so. */
#include <switchboard.h>

static sb_status noop(void *state, const sb_value *args, sb_value **out) {
    (void)state;
    (void)args;
    *out = sb_null();
    return SB_OK;
}

static const sb_action_def actions[] = {{"noop", noop}, {NULL, NULL}};

struct future_target_def {
    sb_target_def known; /* the fields of today's version */
    const char *added;   /* what the next version might add */
};

const struct future_target_def Target_Later = {{SB_TARGET_DEF_VERSION + 1, NULL, NULL, actions, NULL}, "new"};
