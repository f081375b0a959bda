// The identifiers the installed headers (include/switchboard.h and
// switchboard_lua.h) use: functions, types, and a few names their comments
// use. A generated C wrapper must not take one (target "dict", action "new").
// scripts/check-header.sh fails when this list and the headers differ.
enum HeaderNames {
    static let all: Set<String> = [
        "sb_abi_version", "sb_action_cancelled", "sb_action_def", "sb_action_perform",
        "sb_action_perform_async", "sb_action_perform_opts", "sb_action_register",
        "sb_action_register_contract", "sb_action_unregister", "sb_action_unregister_if",
        "sb_array_append", "sb_array_append_new", "sb_array_get", "sb_array_new", "sb_bool", "sb_bytes",
        "sb_call", "sb_call_", "sb_call_action", "sb_call_answer", "sb_call_caller_waits", "sb_call_cancelled", "sb_call_event",
        "sb_call_interceptor", "sb_call_options", "sb_call_params", "sb_call_phase", "sb_call_proceed",
        "sb_call_redirect", "sb_call_reject", "sb_call_tag", "sb_call_tag_count", "sb_call_target",
        "sb_call_url", "sb_callback_call", "sb_callback_new", "sb_cancellation", "sb_cancellation_free",
        "sb_cancellation_new", "sb_cancellation_request", "sb_cancellation_requested", "sb_class_def",
        "sb_class_register", "sb_class_unregister_if", "sb_completion", "sb_completion_caller_waits",
        "sb_completion_cancelled", "sb_completion_fail", "sb_completion_succeed", "sb_completion_take",
        "sb_contract_check", "sb_contract_def", "sb_degrade_handler_clear_if", "sb_degrade_handler_set",
        "sb_dict_at", "sb_dict_get", "sb_dict_new", "sb_dict_set", "sb_dict_set_new", "sb_discoverer_add",
        "sb_discoverer_fn", "sb_discoverer_remove", "sb_done_fn", "sb_double", "sb_error_message",
        "sb_error_set", "sb_fn", "sb_int", "sb_interceptor_add", "sb_interceptor_allow_bypass",
        "sb_interceptor_fn", "sb_interceptor_remove", "sb_interceptor_set_options", "sb_json_decode",
        "sb_json_encode", "sb_lua_open", "sb_lua_queue", "sb_lua_set_charge", "sb_mediator", "sb_mediator_free",
        "sb_mediator_new", "sb_mediator_shared", "sb_memory_free", "sb_null", "sb_observer_add",
        "sb_observer_fn", "sb_observer_remove", "sb_plugin_load", "sb_pointer", "sb_queue", "sb_queue_dispatch", "sb_queue_fd",
        "sb_queue_free", "sb_queue_new", "sb_queue_pending", "sb_queue_post", "sb_route",
        "sb_route_call", "sb_route_call_async", "sb_route_free", "sb_route_prepare", "sb_routes",
        "sb_routes_json", "sb_rules_set_json", "sb_scheme_register", "sb_scheme_unregister",
        "sb_scheme_unregister_if", "sb_service_bind", "sb_service_define", "sb_service_perform",
        "sb_service_perform_async", "sb_service_remove", "sb_status", "sb_status_name", "sb_status_string", "sb_string", "sb_string_n", "sb_target_def",
        "sb_target_evict", "sb_target_set_origin", "sb_target_unregister", "sb_type", "sb_url_build",
        "sb_url_converter_add", "sb_url_converter_remove", "sb_url_converter_remove_if", "sb_url_fallback_remove",
        "sb_url_fallback_remove_handler_if", "sb_url_fallback_set", "sb_url_fallback_set_handler", "sb_url_lookup",
        "sb_url_open", "sb_url_open_async", "sb_url_options", "sb_url_pattern_add", "sb_url_pattern_add_handler",
        "sb_url_pattern_remove", "sb_url_pattern_remove_handler_if", "sb_url_pattern_remove_scheme",
        "sb_url_require_signature", "sb_url_set_observer", "sb_url_set_policy", "sb_url_sign", "sb_value", "sb_value_count",
        "sb_value_equal", "sb_value_get_bool", "sb_value_get_bytes", "sb_value_get_double",
        "sb_value_get_int", "sb_value_get_pointer", "sb_value_get_string", "sb_value_release",
        "sb_value_retain", "sb_value_type", "sb_version", "sb_version_number",
    ]
}
