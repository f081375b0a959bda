// The identifiers the installed headers (include/switchboard.h and
// switchboard_lua.h) use: functions, types, and a few names their comments
// use. A generated C wrapper must not take one (target "dict", action "new").
// scripts/check-header.sh fails when this list and the headers differ.
enum HeaderNames {
    static let all: Set<String> = [
        "sb_abi_version", "sb_action_def", "sb_add_discoverer", "sb_add_interceptor",
        "sb_add_observer", "sb_add_route_handler", "sb_add_route_pattern", "sb_array_append", "sb_array_append_new",
        "sb_array_get", "sb_array_new", "sb_bool", "sb_bytes",
        "sb_call", "sb_call_", "sb_call_action", "sb_call_answer",
        "sb_call_cancelled", "sb_call_event", "sb_call_interceptor", "sb_call_options",
        "sb_call_params", "sb_call_phase", "sb_call_proceed", "sb_call_redirect",
        "sb_call_reject", "sb_call_tag", "sb_call_tag_count", "sb_call_target",
        "sb_call_url", "sb_callback_call", "sb_callback_new", "sb_cancel",
        "sb_cancel_free", "sb_cancel_new", "sb_cancel_request", "sb_cancel_requested",
        "sb_cancelled", "sb_check_contract", "sb_completion", "sb_completion_caller_waits", "sb_completion_cancelled", "sb_completion_fail",
        "sb_completion_succeed", "sb_completion_take", "sb_class_def", "sb_clear_degrade_handler_if", "sb_contract_def", "sb_count",
        "sb_define_service", "sb_dict_at", "sb_dict_get", "sb_dict_new", "sb_dict_set",
        "sb_dict_set_new", "sb_discover_fn", "sb_done_fn", "sb_double", "sb_equal",
        "sb_fn", "sb_free", "sb_from_json", "sb_get_bool",
        "sb_get_bytes", "sb_get_double", "sb_get_int", "sb_get_pointer",
        "sb_get_string", "sb_int", "sb_interceptor_fn", "sb_last_error",
        "sb_load_plugin", "sb_lua_open", "sb_lua_set_charge", "sb_mediator", "sb_mediator_free",
        "sb_mediator_new", "sb_mediator_shared", "sb_noun_verb", "sb_null",
        "sb_observer_fn", "sb_open_url", "sb_open_url_async", "sb_open_url_opts", "sb_open_url_params",
        "sb_perform", "sb_perform_async", "sb_perform_opts", "sb_perform_service", "sb_pointer", "sb_register_action",
        "sb_register_action_contract", "sb_register_class", "sb_bind_service", "sb_register_scheme", "sb_release", "sb_release_cached_target",
        "sb_remove_discoverer", "sb_remove_interceptor", "sb_remove_observer", "sb_remove_route_pattern", "sb_remove_service",
        "sb_require_signed_urls", "sb_retain", "sb_route", "sb_route_call", "sb_route_call_async",
        "sb_route_free", "sb_route_prepare", "sb_routes", "sb_routes_json",
        "sb_set_allow_bypass", "sb_set_degrade_handler", "sb_set_error", "sb_set_interceptor_options",
        "sb_set_rules_json", "sb_set_target_origin", "sb_set_url_observer", "sb_set_url_policy",
        "sb_sign_url", "sb_status", "sb_status_string", "sb_string",
        "sb_string_n", "sb_target_def", "sb_to_json", "sb_type",
        "sb_typeof", "sb_unregister_action", "sb_unregister_action_if", "sb_unregister_class_if", "sb_unregister_scheme", "sb_unregister_scheme_if", "sb_remove_route_handler_if", "sb_unregister_target",
        "sb_value", "sb_version", "sb_version_number",
    ]
}
