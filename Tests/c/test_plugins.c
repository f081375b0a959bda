/* Plugins: discovery of Target_<Name>, state, caching, refusals, unloading. */
#include <dlfcn.h>

#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *plugin_dir;

static const char *plugin(const char *file) {
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", plugin_dir, file);
    return path;
}

static int64_t stat_of(sb_mediator *m, const char *key) {
    sb_value *out = NULL;
    int64_t n = -1;
    if (sb_action_perform(m, "Stateless", "counterStats", NULL, 0, &out) == SB_OK) sb_value_get_int(sb_dict_get(out, key), &n);
    sb_value_release(out);
    return n;
}

/* 1 if the catalogue lists `target` as cached, 0 if not, -1 if absent. */
static int target_is_cached(sb_mediator *m, const char *target) {
    sb_value *routes = NULL;
    int result = -1;
    if (sb_routes(m, &routes) != SB_OK) return -1;
    const sb_value *targets = sb_dict_get(routes, "targets");
    for (size_t i = 0; i < sb_value_count(targets); i++) {
        const sb_value *t = sb_array_get(targets, i);
        const char *name = sb_value_get_string(sb_dict_get(t, "name"), NULL);
        int cached = 0;
        if (name && strcmp(name, target) == 0 && sb_value_get_bool(sb_dict_get(t, "cached"), &cached) == SB_OK) {
            result = cached;
        }
    }
    sb_value_release(routes);
    return result;
}

static int64_t next(sb_mediator *m, unsigned flags) {
    sb_value *out = NULL;
    int64_t n = -1;
    if (sb_action_perform(m, "Counter", "next", NULL, flags, &out) == SB_OK) sb_value_get_int(out, &n);
    sb_value_release(out);
    return n;
}

static sb_status registered_next(void *u, const sb_value *p, sb_value **out) {
    (void)u; (void)p;
    *out = sb_string("registered");
    return SB_OK;
}

static void test_discovery_and_caching(void) {
    sb_mediator *m = sb_mediator_new();
    CHECK(next(m, 0) == -1); /* not loaded yet */
    CHECK_STATUS(sb_plugin_load(m, plugin("test_plugin.so")), SB_OK);
    CHECK_STATUS(sb_plugin_load(m, plugin("test_plugin.so")), SB_OK); /* twice is fine */

    /* Uncached: a fresh state per call, destroyed after it. */
    int64_t created = stat_of(m, "created"), destroyed = stat_of(m, "destroyed");
    CHECK(next(m, 0) == 1);
    CHECK(next(m, 0) == 1);
    CHECK(stat_of(m, "created") == created + 2 && stat_of(m, "destroyed") == destroyed + 2);

    /* Cached: one state until released. */
    CHECK(next(m, SB_CACHE_TARGET) == 1);
    CHECK(next(m, SB_CACHE_TARGET) == 2);
    CHECK(next(m, 0) == 3); /* an uncached call reuses the cached instance */
    CHECK(target_is_cached(m, "Counter") == 1);
    CHECK_STATUS(sb_target_evict(m, "Counter"), SB_OK);
    CHECK(target_is_cached(m, "Counter") == 0);
    CHECK(next(m, SB_CACHE_TARGET) == 1);

    /* A missing action with no notFound releases the cached instance, as
     * CTMediator does, with the fallback on or off; a notFound keeps it. */
    {
        sb_value *tally = NULL;
        int64_t made = stat_of(m, "tallyCreated"), gone = stat_of(m, "tallyDestroyed");
        CHECK_STATUS(sb_action_perform(m, "Tally", "next", NULL, SB_CACHE_TARGET, &tally), SB_OK);
        CHECK(check_int(tally) == 1);
        sb_value_release(tally);
        CHECK(target_is_cached(m, "Tally") == 1);
        CHECK_STATUS(sb_action_perform(m, "Tally", "absent", NULL, SB_CACHE_TARGET, &tally), SB_ENOACTION);
        CHECK(target_is_cached(m, "Tally") == 0);
        CHECK(stat_of(m, "tallyCreated") == made + 1 && stat_of(m, "tallyDestroyed") == gone + 1);
        CHECK_STATUS(sb_target_evict(m, "Tally"), SB_ENOTFOUND);
        CHECK_STATUS(sb_action_perform(m, "Tally", "next", NULL, SB_CACHE_TARGET, &tally), SB_OK);
        CHECK(check_int(tally) == 1); /* a fresh instance */
        sb_value_release(tally);
        sb_call_options opts = {SB_CALL_OPTIONS_VERSION, 0, NULL, 0, NULL, 0, NULL};
        CHECK_STATUS(sb_action_perform_opts(m, "Tally", "absent", NULL, &opts, &tally), SB_ENOACTION);
        CHECK(target_is_cached(m, "Tally") == 0);
        CHECK_STATUS(sb_action_perform(m, "Tally", "next", NULL, SB_CACHE_TARGET, &tally), SB_OK);
        sb_value_release(tally);
        CHECK_STATUS(sb_url_open(m, "app://Tally/absent", NULL, NULL), SB_ENOACTION);
        CHECK(target_is_cached(m, "Tally") == 0);
        CHECK(stat_of(m, "tallyCreated") == made + 3 && stat_of(m, "tallyDestroyed") == gone + 3);
        /* Counter's notFound answers: its cached instance stays. */
        CHECK(next(m, SB_CACHE_TARGET) == 2);
        CHECK_STATUS(sb_action_perform(m, "Counter", "absent", NULL, 0, &tally), SB_OK);
        sb_value_release(tally);
        CHECK(target_is_cached(m, "Counter") == 1 && next(m, SB_CACHE_TARGET) == 3);
        CHECK_STATUS(sb_target_evict(m, "Counter"), SB_OK);
        CHECK(next(m, SB_CACHE_TARGET) == 1);
        robustness_row("C plugin target cached, then a missing action (sb_action_perform, sb_action_perform_opts, a URL; "
                       "notFound present)", 4, "the cached instance is destroyed as CTMediator drops it, unless notFound answers");
    }

    /* notFound in a plugin table. */
    sb_value *params = sb_dict_new(), *out = NULL;
    sb_dict_set_new(params, "x", sb_int(1));
    CHECK_STATUS(sb_action_perform(m, "Counter", "nope", params, 0, &out), SB_OK);
    CHECK(sb_value_equal(sb_dict_get(out, "notFound"), params));
    sb_value_release(out);
    sb_value_release(params);

    /* A target without create/destroy: its actions see a NULL state. */
    CHECK_STATUS(sb_action_perform(m, "Stateless", "stateIsNull", NULL, 0, &out), SB_OK);
    CHECK(sb_value_type(out) == SB_BOOL);
    int yes = 0;
    sb_value_get_bool(out, &yes);
    CHECK(yes);
    sb_value_release(out);
    CHECK_STATUS(sb_action_perform(m, "Stateless", "fail", NULL, 0, &out), SB_EREJECTED);
    CHECK(ERROR_MENTIONS("refused on purpose"));
    /* ... and never has an instance to cache, even when asked to. */
    CHECK_STATUS(sb_action_perform(m, "Stateless", "stateIsNull", NULL, SB_CACHE_TARGET, &out), SB_OK);
    sb_value_release(out);
    CHECK(target_is_cached(m, "Stateless") == 0);

    /* Registered actions come before the plugin's own. */
    CHECK_STATUS(sb_action_register(m, "Counter", "next", registered_next, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "Counter", "next", NULL, 0, &out), SB_OK);
    CHECK_STR(sb_value_get_string(out, NULL), "registered");
    sb_value_release(out);
    CHECK(next(m, 0) == -1);
    CHECK_STATUS(sb_action_unregister(m, "Counter", "next"), SB_OK);
    CHECK(next(m, SB_CACHE_TARGET) == 2);

    /* A prepared route to a plugin action, cached. */
    sb_route *r = NULL;
    CHECK_STATUS(sb_route_prepare(m, "Counter", "next", SB_CACHE_TARGET, &r), SB_OK);
    CHECK_STATUS(sb_route_call(r, NULL, &out), SB_OK);
    CHECK(check_int(out) == 3);
    sb_value_release(out);
    sb_route_free(r);

    /* Unregistering forgets the target; the plugin provides it again. */
    CHECK_STATUS(sb_target_unregister(m, "Counter"), SB_OK);
    CHECK(next(m, SB_CACHE_TARGET) == 1);
    sb_mediator_free(m);
}

static void test_refusals(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    CHECK_STATUS(sb_plugin_load(m, plugin("does_not_exist.so")), SB_EINVAL);
    CHECK(ERROR_MENTIONS("does_not_exist.so"));
    CHECK_STATUS(sb_plugin_load(m, plugin("not_a_plugin.txt")), SB_EINVAL);
    CHECK(ERROR_MENTIONS("not_a_plugin.txt"));
    CHECK_STATUS(sb_plugin_load(m, plugin("bad_abi_plugin.so")), SB_EINVAL);
    CHECK(ERROR_MENTIONS("bad_abi_plugin.so") &&
          ERROR_MENTIONS("Target_Future: sb_target_def version 42 is newer than this library (2)"));
    CHECK_STATUS(sb_plugin_load(m, plugin("bad_actions_plugin.so")), SB_EINVAL);
    CHECK(ERROR_MENTIONS("Target_Broken"));
    CHECK_STATUS(sb_plugin_load(m, plugin("bad_contract_plugin.so")), SB_EINVAL);
    CHECK(ERROR_MENTIONS("Target_Typo contracts") && ERROR_MENTIONS("integer"));
    CHECK_STATUS(sb_action_perform(m, "Typo", "noop", NULL, 0, &out), SB_ENOTARGET);
    CHECK_STATUS(sb_plugin_load(m, plugin("stray_contract_plugin.so")), SB_EINVAL);
    CHECK(ERROR_MENTIONS("Contracts_Stray") && ERROR_MENTIONS("\"nope\""));
    CHECK_STATUS(sb_action_perform(m, "Future", "noop", NULL, 0, &out), SB_ENOTARGET);

    /* Loads, but provides nothing. */
    CHECK_STATUS(sb_plugin_load(m, plugin("empty_plugin.so")), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "Counter", "next", NULL, 0, &out), SB_ENOTARGET);

    /* A path that is not UTF-8 is refused, never repaired into another
     * path (here the U+FFFD spelling, which names a real plugin). */
    char target[4096];
    snprintf(target, sizeof target, "%s", plugin("test_plugin.so"));
    char bad[4096], repaired[4096];
    snprintf(bad, sizeof bad, "%s", plugin("link\xff.so"));
    snprintf(repaired, sizeof repaired, "%s", plugin("link\xEF\xBF\xBD.so"));
    unlink(repaired);
    CHECK(symlink(target, repaired) == 0);
    CHECK_STATUS(sb_plugin_load(m, bad), SB_EINVAL);
    CHECK(ERROR_MENTIONS("not valid UTF-8"));
    CHECK_STATUS(sb_action_perform(m, "Counter", "next", NULL, 0, &out), SB_ENOTARGET);
    unlink(repaired);

    CHECK_STATUS(sb_plugin_load(NULL, plugin("test_plugin.so")), SB_EINVAL);
    CHECK_STATUS(sb_plugin_load(m, NULL), SB_EINVAL);
    CHECK_STATUS(sb_plugin_load(m, ""), SB_EINVAL);
    sb_mediator_free(m);
}

/* sb_mediator_free destroys cached states, and leaves the plugin's code
 * loaded (RTLD_NODELETE: a thread of the plugin's may still run it): the
 * plugin logs "destroy" from destroy(), and "unload" from its ELF
 * destructor only as the process exits. */
static void test_free_order(void) {
    char log_path[] = "/tmp/sb-plugin-log-XXXXXX";
    int fd = mkstemp(log_path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    setenv("SB_TEST_PLUGIN_LOG", log_path, 1);

    /* A second copy of the plugin under another name, so this mediator is
     * its only user: freeing it would unload it if anything did. */
    char copy[4200];
    snprintf(copy, sizeof copy, "%s.order.so", log_path);
    char command[9000];
    snprintf(command, sizeof command, "cp '%s' '%s'", plugin("test_plugin.so"), copy);
    CHECK(system(command) == 0);

    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_plugin_load(m, copy), SB_OK);
    CHECK(next(m, SB_CACHE_TARGET) == 1);
    sb_mediator_free(m);

    FILE *f = fopen(log_path, "r");
    char text[256] = {0};
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f) fclose(f);
    CHECK_STR(text, "destroy\n");
    void *still = dlopen(copy, RTLD_NOW | RTLD_NOLOAD);
    CHECK(still != NULL); /* mapped until exit */
    if (still != NULL) dlclose(still);
    unsetenv("SB_TEST_PLUGIN_LOG");
    remove(log_path);
    remove(copy);
}

/* A second plugin that defines a target name a loaded plugin already
 * defines is refused, naming both; the first keeps answering. */
static void test_duplicate_target(void) {
    char copy[] = "/tmp/sb-plugin-copy-XXXXXX";
    int fd = mkstemp(copy);
    CHECK(fd >= 0);
    if (fd < 0) return;
    close(fd);
    char command[9000];
    snprintf(command, sizeof command, "cp '%s' '%s'", plugin("test_plugin.so"), copy);
    CHECK(system(command) == 0);

    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_plugin_load(m, plugin("test_plugin.so")), SB_OK);
    CHECK_STATUS(sb_plugin_load(m, copy), SB_EINVAL);
    CHECK(ERROR_MENTIONS("Target_Counter is already defined by plugin"));
    CHECK(ERROR_MENTIONS(copy));
    CHECK(next(m, 0) == 1);
    char *routes = sb_routes_json(m);
    CHECK(routes != NULL && strstr(routes, copy) == NULL);
    sb_memory_free(routes);
    /* The same path again is still one plugin, loaded once. */
    CHECK_STATUS(sb_plugin_load(m, plugin("test_plugin.so")), SB_OK);
    sb_mediator_free(m);
    remove(copy);
}

/* Counter.add has a contract (in its table): checked, and listed. */
static void test_contracts(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *params = sb_dict_new(), *out = NULL;
    CHECK_STATUS(sb_plugin_load(m, plugin("test_plugin.so")), SB_OK);
    char *listed = sb_routes_json(m); /* before any call: listed from the plugin */
    CHECK(listed != NULL && strstr(listed, "what to add 1000 to") != NULL);
    sb_memory_free(listed);
    sb_dict_set_new(params, "n", sb_string("5"));
    CHECK_STATUS(sb_action_perform(m, "Counter", "add", params, 0, &out), SB_EPARAMS);
    CHECK_STR(sb_error_message(), "Counter.add: param \"n\": expected int, got string \"5\"");
    sb_dict_set_new(params, "n", sb_int(5));
    CHECK_STATUS(sb_action_perform(m, "Counter", "add", params, 0, &out), SB_OK);
    CHECK(check_int(out) == 1005);
    sb_value_release(out);
    CHECK_STATUS(sb_url_open(m, "app://Counter/add?n=7", NULL, &out), SB_OK);
    CHECK(check_int(out) == 1007);
    sb_value_release(out);
    char *routes = sb_routes_json(m);
    CHECK(routes != NULL && strstr(routes, "what to add 1000 to") != NULL);
    sb_memory_free(routes);
    sb_value_release(params);
    sb_mediator_free(m);
}

static sb_status answer_fallback(void *u, const sb_value *p, sb_value **out) {
    (void)u; (void)p;
    *out = sb_string("fallback");
    return SB_OK;
}

/* What answers `target`.`action` with no params: its string result, or "" on
 * failure (the caller owns nothing). */
static const char *answer_of(sb_mediator *m, const char *target, const char *action) {
    static char text[64];
    sb_value *out = NULL;
    text[0] = 0;
    if (sb_action_perform(m, target, action, NULL, 0, &out) == SB_OK && sb_value_get_string(out, NULL)) {
        snprintf(text, sizeof text, "%s", sb_value_get_string(out, NULL));
    }
    sb_value_release(out);
    return text;
}

/* A name the plugins were asked for in vain is remembered (they are not asked
 * again while nothing changed), but every change that could make it answer
 * is seen by the next call: a registration, an unregistration, a plugin
 * loaded after the miss. */
static void test_misses_then_changes(void) {
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_plugin_load(m, plugin("test_plugin.so")), SB_OK);
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", answer_fallback, NULL, NULL), SB_OK);
    CHECK_STR(answer_of(m, "Later", "x"), "fallback");
    CHECK_STR(answer_of(m, "Later", "x"), "fallback"); /* remembered as missing */
    CHECK_STATUS(sb_action_register(m, "Later", "x", registered_next, NULL, NULL), SB_OK);
    CHECK_STR(answer_of(m, "Later", "x"), "registered");
    CHECK_STATUS(sb_target_unregister(m, "Later"), SB_OK);
    CHECK_STR(answer_of(m, "Later", "x"), "fallback");
    /* Missed again, then registered under another name: still missing. */
    CHECK_STATUS(sb_action_register(m, "Other", "x", registered_next, NULL, NULL), SB_OK);
    CHECK_STR(answer_of(m, "Later", "x"), "fallback");
    CHECK_STATUS(sb_action_register(m, "Later", "x", registered_next, NULL, NULL), SB_OK);
    CHECK_STR(answer_of(m, "Later", "x"), "registered");

    /* Typed is in no plugin loaded yet: missed, then found once its plugin loads. */
    sb_value *out = NULL;
    CHECK_STR(answer_of(m, "Typed", "untyped"), "fallback");
    CHECK_STR(answer_of(m, "Typed", "untyped"), "fallback");
    CHECK_STATUS(sb_action_perform(m, "Typed", "untyped", NULL, SB_NO_FALLBACK, &out), SB_ENOTARGET);
    CHECK(ERROR_MENTIONS("no target named \"Typed\""));
    CHECK_STATUS(sb_plugin_load(m, plugin("typed_plugin.so")), SB_OK);
    sb_value *params = sb_dict_new();
    sb_dict_set_new(params, "k", sb_int(7));
    CHECK_STATUS(sb_action_perform(m, "Typed", "untyped", params, 0, &out), SB_OK);
    CHECK(sb_value_equal(out, params));
    sb_value_release(out);
    sb_value_release(params);
    sb_mediator_free(m);
}

int main(int argc, char **argv) {
    plugin_dir = argc > 1 ? argv[1] : ".";
    test_discovery_and_caching();
    test_misses_then_changes();
    test_contracts();
    test_duplicate_target();
    test_refusals();
    test_free_order();
    return check_report("plugins");
}
