#include "interop_helpers.h"

sb_status helper_add_one(void *userdata, const sb_value *args, sb_value **out) {
    int64_t n = 0;
    (void)userdata;
    if (sb_value_get_int(args, &n) != SB_OK) {
        sb_error_set("helper_add_one: args must be an int");
        return SB_ETYPE;
    }
    *out = sb_int(n + 1);
    return SB_OK;
}

sb_status helper_call_param_callback(void *userdata, const sb_value *params, sb_value **out) {
    (void)userdata;
    return sb_callback_call(sb_dict_get(params, "cb"), sb_dict_get(params, "arg"), out);
}

sb_status helper_reject(void *userdata, const sb_value *params, sb_value **out) {
    (void)userdata;
    (void)params;
    (void)out;
    sb_error_set("helper_reject: %s", "policy says no");
    return SB_EREJECTED;
}

sb_status helper_perform_with_c_callback(sb_mediator *m, const char *target, const char *action,
                                         int64_t arg, int64_t *result) {
    sb_value *params = sb_dict_new(), *out = NULL;
    sb_dict_set_new(params, "cb", sb_callback_new(helper_add_one, NULL, NULL));
    sb_dict_set_new(params, "arg", sb_int(arg));
    sb_status s = sb_action_perform(m, target, action, params, 0, &out);
    if (s == SB_OK && sb_value_get_int(out, result) != SB_OK) s = SB_ETYPE;
    sb_value_release(out);
    sb_value_release(params);
    return s;
}

sb_status helper_perform(sb_mediator *m, const char *target, const char *action, unsigned flags, sb_value **out) {
    return sb_action_perform(m, target, action, NULL, flags, out);
}
