/* Versioned plugin tables (switchboard.h, "Versioned structs" and
 * sb_target_def): a plugin built against the 0.1 header loads into this
 * library and works, contracts and all; a version-2 table carries its
 * contracts inline; a version-1 table's missing fields are never read; a
 * table newer than the library, or of no version, is refused. */
#include "check.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *plugin_dir;

static const char *plugin(const char *file) {
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", plugin_dir, file);
    return path;
}

static sb_value *n_param(sb_value *n) {
    sb_value *params = sb_dict_new();
    sb_dict_set_new(params, "n", n);
    return params;
}

/* The routes JSON mentions `text`. */
static int routes_mention(sb_mediator *m, const char *text) {
    char *routes = sb_routes_json(m);
    int found = routes != NULL && strstr(routes, text) != NULL;
    sb_memory_free(routes);
    return found;
}

static void test_plugin_built_against_0_1(void) {
    /* Its table really is the 0.1 layout: smaller than today's. */
    void *handle = dlopen(plugin("old_plugin.so"), RTLD_NOW | RTLD_LOCAL);
    CHECK(handle != NULL);
    const size_t *old_size = handle != NULL ? (const size_t *)dlsym(handle, "old_table_size") : NULL;
    CHECK(old_size != NULL && *old_size < sizeof(sb_target_def));
    if (handle != NULL) dlclose(handle);

    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    CHECK_STATUS(sb_plugin_load(m, plugin("old_plugin.so")), SB_OK);

    /* Its state: create() runs, the cached instance counts. */
    for (int64_t expected = 1; expected <= 3; expected++) {
        CHECK_STATUS(sb_action_perform(m, "Old", "next", NULL, SB_CACHE_TARGET, &out), SB_OK);
        CHECK(check_int(out) == expected);
        sb_value_release(out);
    }

    /* Its action's result, built with the functions it calls. */
    sb_value *params = n_param(sb_int(5));
    CHECK_STATUS(sb_action_perform(m, "Old", "wrap", params, 0, &out), SB_OK);
    CHECK(check_int(sb_dict_get(out, "got")) == 5);
    CHECK_STR(sb_value_get_string(sb_dict_get(out, "built"), NULL), "0.1.0");
    sb_value_release(out);
    sb_value_release(params);

    /* Its Contracts_Old export is read and enforced, and listed. */
    params = n_param(sb_string("5"));
    CHECK_STATUS(sb_action_perform(m, "Old", "wrap", params, 0, &out), SB_EPARAMS);
    CHECK(out == NULL);
    CHECK_STR(sb_error_message(), "Old.wrap: param \"n\": expected int, got string \"5\"");
    sb_value_release(params);
    CHECK_STATUS(sb_action_perform(m, "Old", "wrap", NULL, 0, &out), SB_EPARAMS);
    CHECK(routes_mention(m, "handed back"));
    sb_mediator_free(m);
}

static void test_version_2_and_unread_fields(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    CHECK_STATUS(sb_plugin_load(m, plugin("versions_plugin.so")), SB_OK);

    /* Version 2: the contracts in the table are enforced and listed. */
    sb_value *params = n_param(sb_int(9));
    CHECK_STATUS(sb_action_perform(m, "Inline", "wrap", params, 0, &out), SB_OK);
    CHECK(check_int(sb_dict_get(out, "got")) == 9);
    sb_value_release(out);
    sb_value_release(params);
    params = n_param(sb_string("9"));
    CHECK_STATUS(sb_action_perform(m, "Inline", "wrap", params, 0, &out), SB_EPARAMS);
    CHECK(ERROR_MENTIONS("Inline.wrap: param \"n\""));
    CHECK(routes_mention(m, "inline"));

    /* Version 1: `contracts` (which holds a contract that does not parse)
     * is not read, so the plugin loaded and the call has no contract. */
    CHECK_STATUS(sb_action_perform(m, "Legacy", "wrap", params, 0, &out), SB_OK);
    CHECK_STR(sb_value_get_string(sb_dict_get(out, "got"), NULL), "9");
    sb_value_release(out);
    sb_value_release(params);
    CHECK(!routes_mention(m, "no such type"));
    sb_mediator_free(m);
}

static void test_refused_versions(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    char expected[160];
    snprintf(expected, sizeof expected, "Target_Later: sb_target_def version %d is newer than this library (%d)",
             SB_TARGET_DEF_VERSION + 1, SB_TARGET_DEF_VERSION);
    CHECK_STATUS(sb_plugin_load(m, plugin("future_plugin.so")), SB_EINVAL);
    CHECK(ERROR_MENTIONS("future_plugin.so") && ERROR_MENTIONS(expected));
    CHECK_STATUS(sb_action_perform(m, "Later", "noop", NULL, 0, &out), SB_ENOTARGET);

    CHECK_STATUS(sb_plugin_load(m, plugin("zero_version_plugin.so")), SB_EINVAL);
    CHECK(ERROR_MENTIONS("Target_Unset: sb_target_def version 0 is not a version"));
    CHECK_STATUS(sb_action_perform(m, "Unset", "noop", NULL, 0, &out), SB_ENOTARGET);

    /* One source for a target's contracts: a version-2 table with a
     * Contracts_ export too is refused. */
    CHECK_STATUS(sb_plugin_load(m, plugin("doubled_contracts_plugin.so")), SB_EINVAL);
    CHECK(ERROR_MENTIONS("Target_Doubled is a version-2 table") && ERROR_MENTIONS("Contracts_Doubled"));
    CHECK_STATUS(sb_action_perform(m, "Doubled", "noop", NULL, 0, &out), SB_ENOTARGET);

    /* One contract per action: a table naming one twice is refused. */
    CHECK_STATUS(sb_plugin_load(m, plugin("repeated_contract_plugin.so")), SB_EINVAL);
    CHECK(ERROR_MENTIONS("names \"noop\" twice"));
    CHECK_STATUS(sb_action_perform(m, "Repeated", "noop", NULL, 0, &out), SB_ENOTARGET);
    sb_mediator_free(m);
    robustness_row("Plugin contract tables naming one action twice", 1, "SB_EINVAL naming the action; nothing loaded");
}

/* dlsym on a plugin's handle also finds its dependencies' symbols: a
 * Contracts_ table a library it links exports is not the plugin's (found by
 * a hostile pass: the library's `-> int` failed every call). */
static void test_only_the_plugins_own_tables(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    CHECK_STATUS(sb_plugin_load(m, plugin("borrowing_plugin.so")), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "Borrowing", "hello", NULL, 0, &out), SB_OK);
    size_t length = 0;
    const char *text = sb_value_get_string(out, &length);
    CHECK(text != NULL && strcmp(text, "hello") == 0);
    sb_value_release(out);
    char *routes = sb_routes_json(m);
    CHECK(routes != NULL && strstr(routes, "-> int") == NULL);
    sb_memory_free(routes);
    sb_mediator_free(m);
    robustness_row("A plugin linking a library that exports Contracts_<its target>", 1,
                   "the library's table is ignored: only what the plugin defines itself is read");
}

int main(int argc, char **argv) {
    plugin_dir = argc > 1 ? argv[1] : ".";
    test_plugin_built_against_0_1();
    test_version_2_and_unread_fields();
    test_refused_versions();
    test_only_the_plugins_own_tables();
    return check_report("versions");
}
