/* C code that the Swift tests of the C face drive: real C callers and C
 * functions, talking to Swift targets and callbacks through switchboard.h. */
#ifndef INTEROP_HELPERS_H
#define INTEROP_HELPERS_H

#include "switchboard.h"

/* A C callback: args (an int) + 1. */
sb_status helper_add_one(void *userdata, const sb_value *args, sb_value **out);

/* A C action: calls params.cb with params.arg and returns what it returns. */
sb_status helper_call_param_callback(void *userdata, const sb_value *params, sb_value **out);

/* A C action that fails with SB_EREJECTED and a message. */
sb_status helper_reject(void *userdata, const sb_value *params, sb_value **out);

/* Performs target.action from C with params {cb: a C callback adding one,
 * arg: `arg`}; stores the int result in *result. Returns the status. */
sb_status helper_perform_with_c_callback(sb_mediator *m, const char *target, const char *action,
                                         int64_t arg, int64_t *result);

/* Performs target.action from C with no params; *out as sb_action_perform's. */
sb_status helper_perform(sb_mediator *m, const char *target, const char *action, unsigned flags, sb_value **out);

#endif
