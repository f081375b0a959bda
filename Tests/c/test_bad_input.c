/* Every entry point given NULL, the wrong kind of value or invalid input:
 * each row is a call and what switchboard.h promises for it. After the whole
 * table, the mediator still works. */
#include "check.h"

#include <stdint.h>

static sb_mediator *M;
static sb_value *I, *S, *A, *D, *out;
static sb_route *route;
static int b;
static int64_t i64;
static double dbl;
static void *ptr;
static size_t len;
static const char *key;
static sb_value *val;
/* 100,000 '[': nesting far past SB_MAX_DEPTH. */
static char deep_json[100001];

static sb_status ok_action(void *u, const sb_value *p, sb_value **o) {
    (void)u; (void)p;
    *o = sb_int(7);
    return SB_OK;
}

#define SB_FAKE_FLAG 0x100u

/* sb_class_register: a class to refuse in each way. */
static sb_status class_create(void *u, void **state) { (void)u; *state = NULL; return SB_OK; }
static sb_status class_call(void *u, void *state, const char *a, const sb_value *p, sb_value **o) {
    (void)u; (void)state; (void)a; (void)p;
    *o = sb_int(7);
    return SB_OK;
}
static const char *const def_actions[] = {"ok", NULL};
static const char *const def_empty[] = {NULL};
static const char *const def_unnamed[] = {"", NULL};
static const char *const def_bad_contract[] = {"x: nosuchtype", NULL};
static const sb_class_def def_good = {SB_CLASS_DEF_VERSION, def_actions, NULL, class_create, class_call, NULL, NULL};
static const sb_class_def def_v0 = {0, def_actions, NULL, class_create, class_call, NULL, NULL};
static const sb_class_def def_no_create = {SB_CLASS_DEF_VERSION, def_actions, NULL, NULL, class_call, NULL, NULL};
static const sb_class_def def_no_call = {SB_CLASS_DEF_VERSION, def_actions, NULL, class_create, NULL, NULL, NULL};
static const sb_class_def def_no_list = {SB_CLASS_DEF_VERSION, NULL, NULL, class_create, class_call, NULL, NULL};
static const sb_class_def def_no_actions = {SB_CLASS_DEF_VERSION, def_empty, NULL, class_create, class_call, NULL, NULL};
static const sb_class_def def_empty_action = {SB_CLASS_DEF_VERSION, def_unnamed, NULL, class_create, class_call, NULL, NULL};
static const sb_class_def def_contract = {SB_CLASS_DEF_VERSION, def_actions, def_bad_contract, class_create,
                                            class_call, NULL, NULL};
static const sb_class_def def_origin = {SB_CLASS_DEF_VERSION, def_actions, NULL, class_create, class_call, NULL, ""};

/* X(name, (expression that is true when the call behaves as documented)) */
#define ROWS(X)                                                                                   \
    X(string_null, (sb_string(NULL) == NULL))                                                     \
    X(string_bad_utf8, (sb_string("\xc0\x80") == NULL))                                           \
    X(string_n_null, (sb_string_n(NULL, 1) == NULL))                                              \
    X(bytes_null, (sb_bytes(NULL, 1) == NULL))                                                    \
    X(retain_null, (sb_value_retain(NULL) == NULL))                                                     \
    X(release_null, (sb_value_release(NULL), 1))                                                        \
    X(typeof_null, (sb_value_type(NULL) == SB_NULL))                                                  \
    X(get_bool_null, (sb_value_get_bool(NULL, &b) == SB_EINVAL))                                        \
    X(get_bool_no_out, (sb_value_get_bool(I, NULL) == SB_EINVAL))                                       \
    X(get_bool_type, (sb_value_get_bool(I, &b) == SB_ETYPE))                                            \
    X(get_int_null, (sb_value_get_int(NULL, &i64) == SB_EINVAL))                                        \
    X(get_int_no_out, (sb_value_get_int(I, NULL) == SB_EINVAL))                                         \
    X(get_int_type, (sb_value_get_int(S, &i64) == SB_ETYPE))                                            \
    X(get_double_null, (sb_value_get_double(NULL, &dbl) == SB_EINVAL))                                  \
    X(get_double_type, (sb_value_get_double(I, &dbl) == SB_ETYPE))                                      \
    X(get_pointer_null, (sb_value_get_pointer(NULL, &ptr) == SB_EINVAL))                                \
    X(get_pointer_type, (sb_value_get_pointer(I, &ptr) == SB_ETYPE))                                    \
    X(get_string_null, (sb_value_get_string(NULL, &len) == NULL))                                       \
    X(get_string_type, (sb_value_get_string(I, &len) == NULL))                                          \
    X(get_bytes_null, (sb_value_get_bytes(NULL, &len) == NULL))                                         \
    X(get_bytes_type, (sb_value_get_bytes(S, &len) == NULL))                                            \
    X(equal_null, (sb_value_equal(NULL, I) == 0 && sb_value_equal(I, NULL) == 0))                             \
    X(append_null_array, (sb_array_append(NULL, I) == SB_EINVAL))                                 \
    X(append_null_item, (sb_array_append(A, NULL) == SB_EINVAL))                                  \
    X(append_not_array, (sb_array_append(D, I) == SB_ETYPE))                                      \
    X(append_scalar, (sb_array_append(I, I) == SB_ETYPE))                                         \
    X(append_new_nulls, (sb_array_append_new(NULL, NULL) == SB_EINVAL))                           \
    X(set_null_dict, (sb_dict_set(NULL, "k", I) == SB_EINVAL))                                    \
    X(set_null_key, (sb_dict_set(D, NULL, I) == SB_EINVAL))                                       \
    X(set_null_value, (sb_dict_set(D, "k", NULL) == SB_EINVAL))                                   \
    X(set_not_dict, (sb_dict_set(A, "k", I) == SB_ETYPE))                                         \
    X(set_bad_key, (sb_dict_set(D, "\xc3", I) == SB_EINVAL))                                      \
    X(set_new_null_value, (sb_dict_set_new(D, "k", NULL) == SB_EINVAL))                           \
    X(get_null_dict, (sb_dict_get(NULL, "k") == NULL))                                            \
    X(get_null_key, (sb_dict_get(D, NULL) == NULL))                                               \
    X(get_not_dict, (sb_dict_get(A, "k") == NULL))                                                \
    X(count_null, (sb_value_count(NULL) == 0))                                                          \
    X(count_scalar, (sb_value_count(I) == 0))                                                           \
    X(array_get_null, (sb_array_get(NULL, 0) == NULL))                                            \
    X(array_get_dict, (sb_array_get(D, 0) == NULL))                                               \
    X(array_get_range, (sb_array_get(A, 99) == NULL))                                             \
    X(dict_at_null, (sb_dict_at(NULL, 0, &key, &val) == SB_EINVAL))                               \
    X(dict_at_array, (sb_dict_at(A, 0, &key, &val) == SB_ETYPE))                                  \
    X(dict_at_range, (sb_dict_at(D, 99, &key, &val) == SB_EINVAL && key == NULL))                 \
    X(to_json_null, (sb_json_encode(NULL) == NULL))                                                   \
    X(from_json_null_text, (sb_json_decode(NULL, &out) == SB_EINVAL && out == NULL))                \
    X(from_json_null_out, (sb_json_decode("1", NULL) == SB_EINVAL))                                 \
    X(from_json_garbage, (sb_json_decode("{\"a\":", &out) == SB_EINVAL && out == NULL))             \
    X(from_json_deep, (sb_json_decode(deep_json, &out) == SB_EINVAL && out == NULL))                \
    X(free_null, (sb_memory_free(NULL), 1))                                                              \
    X(pointer_null, (sb_value_release(sb_pointer(NULL, NULL)), 1))                                      \
    X(callback_new_null, (sb_callback_new(NULL, NULL, NULL) == NULL))                             \
    X(callback_call_null, (sb_callback_call(NULL, NULL, &out) == SB_EINVAL && out == NULL))       \
    X(callback_call_type, (sb_callback_call(I, NULL, &out) == SB_ETYPE && out == NULL))           \
    X(mediator_free_null, (sb_mediator_free(NULL), 1))                                            \
    X(register_null_m, (sb_action_register(NULL, "t", "a", ok_action, NULL, NULL) == SB_EINVAL))  \
    X(register_null_t, (sb_action_register(M, NULL, "a", ok_action, NULL, NULL) == SB_EINVAL))    \
    X(register_null_a, (sb_action_register(M, "t", NULL, ok_action, NULL, NULL) == SB_EINVAL))    \
    X(register_null_fn, (sb_action_register(M, "t", "a", NULL, NULL, NULL) == SB_EINVAL))         \
    X(register_empty, (sb_action_register(M, "", "a", ok_action, NULL, NULL) == SB_EINVAL))       \
    X(register_bad_utf8, (sb_action_register(M, "t", "\xfe", ok_action, NULL, NULL) == SB_EINVAL)) \
    X(unregister_null_m, (sb_target_unregister(NULL, "t") == SB_EINVAL))                          \
    X(unregister_null_t, (sb_target_unregister(M, NULL) == SB_EINVAL))                            \
    X(unregister_empty, (sb_target_unregister(M, "") == SB_EINVAL))                               \
    X(unregister_action_null, (sb_action_unregister(M, "t", NULL) == SB_EINVAL))                  \
    X(origin_null_m, (sb_target_set_origin(NULL, "T", "file") == SB_EINVAL))                      \
    X(origin_null_origin, (sb_target_set_origin(M, "T", NULL) == SB_EINVAL))                      \
    X(origin_bad_utf8, (sb_target_set_origin(M, "T", "\xfe") == SB_EINVAL))                        \
    X(origin_unknown, (sb_target_set_origin(M, "Nobody", "file") == SB_ENOTFOUND))                \
    X(unregister_action_m, (sb_action_unregister(NULL, "t", "a") == SB_EINVAL))                   \
    X(perform_null_m, (sb_action_perform(NULL, "T", "ok", NULL, 0, &out) == SB_EINVAL && out == NULL))   \
    X(perform_null_t, (sb_action_perform(M, NULL, "ok", NULL, 0, &out) == SB_EINVAL))                    \
    X(perform_null_a, (sb_action_perform(M, "T", NULL, NULL, 0, &out) == SB_EINVAL))                     \
    X(perform_empty, (sb_action_perform(M, "", "", NULL, 0, &out) == SB_EINVAL))                         \
    X(perform_params_type, (sb_action_perform(M, "T", "ok", I, 0, &out) == SB_ETYPE))                    \
    X(perform_params_array, (sb_action_perform(M, "T", "ok", A, 0, &out) == SB_ETYPE))                   \
    X(perform_flags, (sb_action_perform(M, "T", "ok", NULL, SB_FAKE_FLAG, &out) == SB_EINVAL))           \
    X(perform_bad_utf8, (sb_action_perform(M, "\xff", "ok", NULL, 0, &out) == SB_EINVAL))             \
    X(release_cached_null, (sb_target_evict(NULL, "T") == SB_EINVAL))                    \
    X(release_cached_name, (sb_target_evict(M, NULL) == SB_EINVAL))                      \
    X(prepare_null_m, (sb_route_prepare(NULL, "T", "ok", 0, &route) == SB_EINVAL))                \
    X(prepare_null_t, (sb_route_prepare(M, NULL, "ok", 0, &route) == SB_EINVAL))                  \
    X(prepare_null_a, (sb_route_prepare(M, "T", NULL, 0, &route) == SB_EINVAL))                   \
    X(prepare_no_out, (sb_route_prepare(M, "T", "ok", 0, NULL) == SB_EINVAL))                     \
    X(prepare_flags, (sb_route_prepare(M, "T", "ok", SB_FAKE_FLAG, &route) == SB_EINVAL))         \
    X(route_call_null, (sb_route_call(NULL, NULL, &out) == SB_EINVAL))                            \
    X(route_free_null, (sb_route_free(NULL), 1))                                                  \
    X(status_unknown, (strcmp(sb_status_string((sb_status)-1), "unknown status") == 0))           \
    X(set_error_null, (sb_error_set(NULL), sb_error_message() != NULL))                              \
    X(discoverer_null_m, (sb_discoverer_add(NULL, NULL, NULL, NULL, NULL) == SB_EINVAL))          \
    X(discoverer_null_fn, (sb_discoverer_add(M, NULL, NULL, NULL, NULL) == SB_EINVAL))            \
    X(remove_discoverer_null, (sb_discoverer_remove(NULL, 1) == SB_EINVAL))                       \
    X(remove_discoverer_unknown, (sb_discoverer_remove(M, 987654) == SB_ENOTFOUND))                  \
    X(open_null_m, (sb_url_open(NULL, "app://T/ok", NULL, &out) == SB_EINVAL))                      \
    X(open_null_url, (sb_url_open(M, NULL, NULL, &out) == SB_EINVAL))                             \
    X(open_bad_url, (sb_url_open(M, "::", NULL, &out) == SB_EBADURL))                             \
    X(open_params_type, (sb_url_open(M, "app://T/ok", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .params = I}, &out) == SB_ETYPE))         \
    X(open_completion_type, (sb_url_open(M, "app://T/ok", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .completion = I}, &out) == SB_ETYPE))                  \
    X(scheme_null, (sb_scheme_register(M, NULL, NULL, NULL, NULL) == SB_EINVAL))                  \
    X(scheme_empty, (sb_scheme_register(M, "", NULL, NULL, NULL) == SB_EINVAL))                   \
    X(scheme_null_m, (sb_scheme_register(NULL, "x", NULL, NULL, NULL) == SB_EINVAL))              \
    X(unscheme_null, (sb_scheme_unregister(M, NULL) == SB_EINVAL))                                \
    X(pattern_null, (sb_url_pattern_add(M, NULL, "T", "ok") == SB_EINVAL))                      \
    X(pattern_null_target, (sb_url_pattern_add(M, "app://x", NULL, "ok") == SB_EINVAL))        \
    X(pattern_malformed, (sb_url_pattern_add(M, "app://x//y", "T", "ok") == SB_EINVAL))         \
    X(unpattern_null, (sb_url_pattern_remove(M, NULL) == SB_EINVAL))                            \
    X(policy_null_m, (sb_url_set_policy(NULL, NULL) == SB_EINVAL))                                \
    X(policy_type, (sb_url_set_policy(M, I) == SB_ETYPE))                                         \
    X(observer_null_m, (sb_url_set_observer(NULL, NULL, NULL, NULL) == SB_EINVAL))                \
    X(routes_null, (sb_routes(NULL, &out) == SB_EINVAL && sb_routes(M, NULL) == SB_EINVAL))       \
    X(routes_json_null, (sb_routes_json(NULL) == NULL))                                           \
    X(class_null_m, (sb_class_register(NULL, "K", &def_good, NULL, NULL) == SB_EINVAL))        \
    X(class_null_def, (sb_class_register(M, "K", NULL, NULL, NULL) == SB_EINVAL))                 \
    X(class_null_name, (sb_class_register(M, NULL, &def_good, NULL, NULL) == SB_EINVAL))        \
    X(class_empty_name, (sb_class_register(M, "", &def_good, NULL, NULL) == SB_EINVAL))         \
    X(class_bad_utf8, (sb_class_register(M, "\xff", &def_good, NULL, NULL) == SB_EINVAL))       \
    X(class_version, (sb_class_register(M, "K", &def_v0, NULL, NULL) == SB_EINVAL))             \
    X(class_no_create, (sb_class_register(M, "K", &def_no_create, NULL, NULL) == SB_EINVAL))    \
    X(class_no_call, (sb_class_register(M, "K", &def_no_call, NULL, NULL) == SB_EINVAL))        \
    X(class_no_list, (sb_class_register(M, "K", &def_no_list, NULL, NULL) == SB_EINVAL))        \
    X(class_no_actions, (sb_class_register(M, "K", &def_no_actions, NULL, NULL) == SB_EINVAL))  \
    X(class_empty_action, (sb_class_register(M, "K", &def_empty_action, NULL, NULL) == SB_EINVAL)) \
    X(class_bad_contract, (sb_class_register(M, "K", &def_contract, NULL, NULL) == SB_EINVAL))  \
    X(class_empty_origin, (sb_class_register(M, "K", &def_origin, NULL, NULL) == SB_EINVAL))    \
    X(class_unregister_null_m, (sb_class_unregister_if(NULL, "K", NULL) == SB_EINVAL))           \
    X(class_unregister_null_name, (sb_class_unregister_if(M, NULL, NULL) == SB_EINVAL))          \
    X(class_unregister_none, (sb_class_unregister_if(M, "T", NULL) == SB_ENOTFOUND))             \
    X(class_none_left, (sb_action_perform(M, "K", "ok", NULL, 0, &out) == SB_ENOTARGET))                 \
    X(service_define_null_m, (sb_service_define(NULL, "S", "a") == SB_EINVAL))                    \
    X(service_define_null_name, (sb_service_define(M, NULL, "a") == SB_EINVAL))                   \
    X(service_define_empty_name, (sb_service_define(M, "", "a") == SB_EINVAL))                    \
    X(service_define_null_text, (sb_service_define(M, "S", NULL) == SB_EINVAL))                   \
    X(service_define_empty_text, (sb_service_define(M, "S", "") == SB_EINVAL))                    \
    X(service_bind_null_m, (sb_service_bind(NULL, "S", "T") == SB_EINVAL))                        \
    X(service_bind_null_name, (sb_service_bind(M, NULL, "T") == SB_EINVAL))                       \
    X(service_bind_empty_target, (sb_service_bind(M, "S", "") == SB_EINVAL))                      \
    X(service_bind_undefined, (sb_service_bind(M, "S", "T") == SB_ENOTFOUND))                     \
    X(service_perform_null_m, (sb_service_perform(NULL, "S", "a", NULL, 0, &out) == SB_EINVAL && out == NULL)) \
    X(service_perform_null_name, (sb_service_perform(M, NULL, "a", NULL, 0, &out) == SB_EINVAL))  \
    X(service_perform_null_action, (sb_service_perform(M, "S", NULL, NULL, 0, &out) == SB_EINVAL)) \
    X(service_perform_undefined, (sb_service_perform(M, "S", "a", NULL, 0, &out) == SB_ENOTFOUND)) \
    X(service_remove_null_m, (sb_service_remove(NULL, "S") == SB_EINVAL))                         \
    X(service_remove_null_name, (sb_service_remove(M, NULL) == SB_EINVAL))                        \
    X(service_remove_undefined, (sb_service_remove(M, "S") == SB_ENOTFOUND))                      \
    X(load_null_m, (sb_plugin_load(NULL, "/x.so") == SB_EINVAL))                                  \
    X(load_null_path, (sb_plugin_load(M, NULL) == SB_EINVAL))                                     \
    X(load_empty, (sb_plugin_load(M, "") == SB_EINVAL))                                           \
    /* A name or id that is not there, outside a call: SB_ENOTFOUND everywhere. */                  \
    X(unregister_unknown, (sb_target_unregister(M, "Nobody") == SB_ENOTFOUND))                    \
    X(unregister_action_unknown, (sb_action_unregister(M, "T", "nope") == SB_ENOTFOUND))          \
    X(unregister_if_not_mine, (sb_action_unregister_if(M, "T", "ok", ok_action, &out) == SB_ENOTFOUND)) \
    X(evict_uncached, (sb_target_evict(M, "T") == SB_ENOTFOUND))                                  \
    X(unscheme_unknown, (sb_scheme_unregister(M, "nosuch") == SB_ENOTFOUND))                      \
    X(unscheme_if_no_handler, (sb_scheme_unregister_if(M, "app", ok_action, NULL) == SB_ENOTFOUND)) \
    X(unpattern_unknown, (sb_url_pattern_remove(M, "app://no/:x") == SB_ENOTFOUND))               \
    X(unpattern_if_unknown, (sb_url_pattern_remove_handler_if(M, "app://no/:x", ok_action, NULL) == SB_ENOTFOUND)) \
    X(remove_interceptor_unknown, (sb_interceptor_remove(M, 987654) == SB_ENOTFOUND))             \
    X(interceptor_options_unknown, (sb_interceptor_set_options(M, 987654, "x", 0) == SB_ENOTFOUND)) \
    X(remove_observer_unknown, (sb_observer_remove(M, 987654) == SB_ENOTFOUND))                   \
    X(degrade_clear_none, (sb_degrade_handler_clear_if(M, ok_action, NULL) == SB_ENOTFOUND))      \
    X(complete_unknown, (sb_completion_succeed(987654, NULL) == SB_ENOTFOUND))                    \
    X(fail_unknown, (sb_completion_fail(987654, SB_EACTION, NULL) == SB_ENOTFOUND))               \
    X(load_missing, (sb_plugin_load(M, "/nonexistent/plugin.so") == SB_EINVAL))                   \
    X(load_directory, (sb_plugin_load(M, "/tmp") == SB_EINVAL))

#define DEFINE_ROW(name, expr) static int name(void) { return (expr) ? 1 : 0; }
ROWS(DEFINE_ROW)

struct row {
    const char *call;
    int (*run)(void);
};
#define LIST_ROW(name, expr) {#expr, name},
static const struct row rows[] = {ROWS(LIST_ROW)};

int main(void) {
    M = sb_mediator_new();
    I = sb_int(1);
    S = sb_string("s");
    A = sb_array_new();
    D = sb_dict_new();
    sb_action_register(M, "T", "ok", ok_action, NULL, NULL);
    memset(deep_json, '[', sizeof deep_json - 1);

    size_t n = sizeof rows / sizeof rows[0];
    for (size_t r = 0; r < n; r++) {
        out = NULL;
        key = NULL;
        int passed = rows[r].run();
        CHECK(passed);
        if (!passed) fprintf(stderr, "  row %zu: %s (last error: %s)\n", r, rows[r].call, sb_error_message());
    }

    /* Nothing above harmed the mediator or the values. */
    CHECK_STATUS(sb_action_perform(M, "T", "ok", NULL, 0, &out), SB_OK);
    CHECK(check_int(out) == 7);
    sb_value_release(out);
    CHECK(sb_value_count(A) == 0 && sb_value_count(D) == 0 && check_int(I) == 1);
    printf("bad input: %zu rows\n", n);
    robustness_row("C entry points given NULL, empty, wrong-kind, malformed or out-of-range arguments "
                   "(Tests/c/test_bad_input.c, one row each)", (long)n,
                   "the documented status or neutral value; the mediator and values are unchanged");

    sb_value_release(I);
    sb_value_release(S);
    sb_value_release(A);
    sb_value_release(D);
    sb_mediator_free(M);
    return check_report("bad_input");
}
