/* The URL entry from C: open, completion, params beside the URL, the
 * policy and its observer, scheme connectors, route patterns, the catalogue. */
#include "check.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int target_calls;
static sb_status echo(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    target_calls++;
    *out = sb_value_retain((sb_value *)params);
    return SB_OK;
}

/* The completion keeps what it was given. */
static sb_value *completed;
static sb_status keep(void *u, const sb_value *info, sb_value **out) {
    (void)u;
    (void)out;
    sb_value_release(completed);
    completed = sb_value_retain((sb_value *)info);
    sb_error_set("the completion's own message"); /* must not leak out */
    return SB_OK;
}

static int observed;
static char observed_reason[256];
static sb_status observe(void *u, const sb_value *info, sb_value **out) {
    (void)u;
    (void)out;
    observed++;
    snprintf(observed_reason, sizeof observed_reason, "%s", sb_value_get_string(sb_dict_get(info, "reason"), NULL));
    return SB_OK;
}

static int freed;
static void count_free(void *p) {
    (void)p;
    freed++;
}

static const char *str(const sb_value *dict, const char *key) {
    return sb_value_get_string(sb_dict_get(dict, key), NULL);
}

static void test_open(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL, *completion = sb_callback_new(keep, NULL, NULL);
    CHECK_STATUS(sb_action_register(m, "A", "show", echo, NULL, NULL), SB_OK);

    CHECK_STATUS(sb_url_open(m, "app://A/show?id=42&tag=a&tag=b&q=x+y", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .completion = completion}, &out), SB_OK);
    CHECK_STR(str(out, "id"), "42");
    CHECK(sb_value_count(sb_dict_get(out, "tag")) == 2);
    CHECK_STR(str(out, "q"), "x+y");
    CHECK(sb_value_equal(sb_dict_get(completed, "result"), out));
    sb_value_release(out);
    CHECK_STATUS(sb_url_open(m, "app://A/show", NULL, NULL), SB_OK);

    /* Params beside the URL win over the query. */
    sb_value *params = sb_dict_new();
    sb_dict_set_new(params, "id", sb_int(7));
    CHECK_STATUS(sb_url_open(m, "app://A/show?id=fromURL&x=1", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .params = params}, &out), SB_OK);
    CHECK(check_int(sb_dict_get(out, "id")) == 7);
    CHECK_STR(str(out, "x"), "1");
    sb_value_release(out);
    sb_value_release(params);

    /* Failures: the status, the completion's {error, code}, the message kept. */
    CHECK_STATUS(sb_url_open(m, "app://A/show?x=%ZZ", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .completion = completion}, &out), SB_EBADURL);
    CHECK(out == NULL);
    CHECK_STR(str(completed, "code"), "EBADURL");
    CHECK(ERROR_MENTIONS("percent escape"));
    CHECK_STR(str(completed, "error"), sb_error_message());
    CHECK_STATUS(sb_url_open(m, "app://A/\xff", NULL, &out), SB_EBADURL);
    CHECK(ERROR_MENTIONS("UTF-8"));
    CHECK_STATUS(sb_url_open(m, "app://Nobody/x", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .completion = completion}, &out), SB_ENOTARGET);
    CHECK_STR(str(completed, "code"), "ENOTARGET");
    CHECK_STATUS(sb_url_open(m, "ftp://A/show", NULL, &out), SB_ENOTARGET);
    CHECK(ERROR_MENTIONS("no connector"));

    sb_value *not_dict = sb_int(1);
    CHECK_STATUS(sb_url_open(m, "app://A/show", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .params = not_dict}, &out), SB_ETYPE);
    CHECK_STATUS(sb_url_open(m, "app://A/show", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .completion = not_dict}, &out), SB_ETYPE); /* completion not a callback */
    sb_value_release(not_dict);

    /* The options' version: 0 (not initialised) and one from a newer header
     * are refused before anything runs; the completion is not called. */
    sb_url_options unset = {0, NULL, completion, NULL};
    sb_url_options newer = SB_URL_OPTIONS_INIT;
    newer.version = SB_URL_OPTIONS_VERSION + 1;
    newer.completion = completion;
    int calls_before = target_calls;
    sb_value_release(completed);
    completed = NULL;
    CHECK_STATUS(sb_url_open(m, "app://A/show", &unset, &out), SB_EINVAL);
    CHECK(ERROR_MENTIONS("version 0"));
    CHECK_STATUS(sb_url_open(m, "app://A/show", &newer, &out), SB_EINVAL);
    CHECK(out == NULL && completed == NULL && target_calls == calls_before);
    sb_value_release(completion);
    sb_value_release(completed);
    completed = NULL;
    sb_mediator_free(m);
}

static void test_policy(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    target_calls = 0;
    observed = 0;
    freed = 0;
    CHECK_STATUS(sb_action_register(m, "A", "nativeSecret", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "A", "show", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_set_observer(m, observe, NULL, count_free), SB_OK);

    CHECK_STATUS(sb_url_open(m, "app://A/%6EativeSecret", NULL, &out), SB_EREJECTED);
    CHECK(observed == 1 && strstr(observed_reason, "native") != NULL);
    CHECK(target_calls == 0);
    CHECK(ERROR_MENTIONS("native")); /* the observer did not replace the message */

    sb_value *policy = sb_dict_new(), *targets = sb_array_new();
    sb_array_append_new(targets, sb_string("Public"));
    sb_dict_set_new(policy, "targets", targets);
    CHECK_STATUS(sb_url_set_policy(m, policy), SB_OK);
    CHECK_STATUS(sb_url_open(m, "app://A/show", NULL, &out), SB_EREJECTED);
    CHECK(observed == 2 && target_calls == 0);
    CHECK_STATUS(sb_url_set_policy(m, NULL), SB_OK);
    CHECK_STATUS(sb_url_open(m, "app://A/show", NULL, NULL), SB_OK);
    CHECK(target_calls == 1);

    /* Wrong shapes are SB_ETYPE and change nothing. */
    sb_dict_set_new(policy, "schemes", sb_string("app"));
    CHECK_STATUS(sb_url_set_policy(m, policy), SB_ETYPE);
    sb_value *not_dict = sb_array_new();
    CHECK_STATUS(sb_url_set_policy(m, not_dict), SB_ETYPE);
    sb_value_release(not_dict);
    sb_value_release(policy);

    CHECK_STATUS(sb_url_set_observer(m, NULL, NULL, NULL), SB_OK);
    CHECK(freed == 1);
    CHECK_STATUS(sb_url_open(m, "app://A/nativeSecret", NULL, NULL), SB_EREJECTED);
    CHECK(observed == 2);
    sb_mediator_free(m);
}

static sb_status web(void *u, const sb_value *args, sb_value **out) {
    (void)u;
    *out = sb_value_retain((sb_value *)args);
    return SB_OK;
}

static void test_schemes_and_patterns(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    freed = 0;
    CHECK_STATUS(sb_action_register(m, "T", "echo", echo, NULL, NULL), SB_OK);

    /* A handler for https gets the whole URL. */
    CHECK_STATUS(sb_scheme_register(m, "https", web, NULL, count_free), SB_OK);
    CHECK_STATUS(sb_url_open(m, "https://example.com/a/b?q=1", NULL, &out), SB_OK);
    CHECK_STR(str(out, "url"), "https://example.com/a/b?q=1");
    CHECK_STR(str(out, "host"), "example.com");
    CHECK(sb_value_count(sb_dict_get(out, "path")) == 2);
    CHECK_STR(str(sb_dict_get(out, "query"), "q"), "1");
    sb_value_release(out);
    CHECK_STATUS(sb_scheme_register(m, "https", web, NULL, count_free), SB_OK); /* replaced */
    CHECK(freed == 1);
    CHECK_STATUS(sb_scheme_unregister(m, "https"), SB_OK);
    CHECK(freed == 2);
    CHECK_STATUS(sb_scheme_unregister(m, "https"), SB_ENOTFOUND);
    CHECK_STATUS(sb_url_open(m, "https://example.com/", NULL, &out), SB_ENOTARGET);

    /* A scheme connected to targets. */
    CHECK_STATUS(sb_scheme_register(m, "myapp", NULL, NULL, count_free), SB_OK);
    CHECK(freed == 3); /* no function keeps the userdata */
    CHECK_STATUS(sb_url_open(m, "MYAPP://T/echo?k=v", NULL, &out), SB_OK);
    CHECK_STR(str(out, "k"), "v");
    sb_value_release(out);
    CHECK_STATUS(sb_scheme_register(m, "1bad", web, NULL, count_free), SB_EINVAL);
    CHECK(freed == 4);

    /* Patterns: typed captures, precedence, removal. */
    CHECK_STATUS(sb_url_pattern_add(m, "app://item/<int:id>(/:tab)", "T", "echo"), SB_OK);
    CHECK_STATUS(sb_url_pattern_add(m, "app://item/new", "T", "echo"), SB_OK);
    CHECK_STATUS(sb_url_open(m, "app://item/42/reviews?x=1", NULL, &out), SB_OK);
    CHECK(check_int(sb_dict_get(out, "id")) == 42);
    CHECK_STR(str(out, "tab"), "reviews");
    CHECK_STR(str(out, "x"), "1");
    sb_value_release(out);
    CHECK_STATUS(sb_url_open(m, "app://item/new", NULL, &out), SB_OK);
    CHECK(sb_value_count(out) == 3); /* the literal route: no captures, the router's three keys */
    CHECK_STR(str(out, SB_PATTERN_KEY), "app://item/new");
    sb_value_release(out);
    CHECK_STATUS(sb_url_pattern_add(m, "app://bad/<double:x>", "T", "echo"), SB_EINVAL);
    CHECK(ERROR_MENTIONS("double"));
    CHECK_STATUS(sb_url_pattern_remove(m, "app://item/<int:id>(/:tab)"), SB_OK);
    CHECK_STATUS(sb_url_pattern_remove(m, "app://item/<int:id>(/:tab)"), SB_ENOTFOUND);

    /* The catalogue. */
    CHECK_STATUS(sb_routes(m, &out), SB_OK);
    sb_value *patterns = sb_dict_get(out, "patterns");
    CHECK(sb_value_count(patterns) == 1);
    CHECK_STR(str(sb_array_get(patterns, 0), "pattern"), "app://item/new");
    CHECK_STR(str(sb_array_get(sb_dict_get(out, "targets"), 0), "name"), "T");
    sb_value_release(out);
    char *json = sb_routes_json(m);
    CHECK(json != NULL && strstr(json, "\"myapp\"") != NULL && strstr(json, "\"connector\":\"targets\"") != NULL);
    sb_memory_free(json);
    sb_mediator_free(m);
}

/* Signed URLs: sb_url_sign makes what sb_url_require_signature accepts; a
 * tampered, unsigned or expired URL is refused before the target runs. */
static void test_signed(void) {
    static const char key[] = "sixteen bytes and more";
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    target_calls = 0;
    observed = 0;
    CHECK_STATUS(sb_action_register(m, "A", "show", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_set_observer(m, observe, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_require_signature(m, key, 5), SB_EINVAL);
    CHECK(ERROR_MENTIONS("at least 16 bytes"));
    CHECK_STATUS(sb_url_require_signature(m, key, sizeof key - 1), SB_OK);

    char *url = sb_url_sign(key, sizeof key - 1, "app://A/show?id=7", INT64_MAX);
    CHECK(url != NULL && strstr(url, "app://A/show?id=7&expires=9223372036854775807&signature=") == url);
    CHECK_STATUS(sb_url_open(m, url, NULL, &out), SB_OK);
    CHECK(sb_value_count(out) == 1 && strcmp(str(out, "id"), "7") == 0); /* no expires, no signature */
    sb_value_release(out);
    out = NULL;
    CHECK(target_calls == 1);

    url[strlen("app://A/show?id=")] = '8'; /* tampered */
    CHECK_STATUS(sb_url_open(m, url, NULL, &out), SB_EREJECTED);
    CHECK(ERROR_MENTIONS("does not match"));
    sb_memory_free(url);
    CHECK_STATUS(sb_url_open(m, "app://A/show?id=7", NULL, &out), SB_EREJECTED);
    CHECK(ERROR_MENTIONS("not signed"));
    url = sb_url_sign(key, sizeof key - 1, "app://A/show", 1); /* 1970 */
    CHECK_STATUS(sb_url_open(m, url, NULL, &out), SB_EREJECTED);
    CHECK(ERROR_MENTIONS("expired"));
    sb_memory_free(url);
    CHECK(target_calls == 1 && observed == 3 && out == NULL);

    /* Misuse: NULL or short keys, NULL or fragment URLs. */
    CHECK(sb_url_sign(NULL, 0, "app://A/show", 1) == NULL);
    CHECK(sb_url_sign(key, 3, "app://A/show", 1) == NULL);
    CHECK(sb_url_sign(key, sizeof key - 1, NULL, 1) == NULL);
    CHECK(sb_url_sign(key, sizeof key - 1, "app://A/show#x", 1) == NULL);
    CHECK(sb_url_sign(key, sizeof key - 1, "app://A/\xff", 1) == NULL);
    CHECK_STATUS(sb_url_require_signature(NULL, key, sizeof key - 1), SB_EINVAL);
    /* A NULL key turns the requirement off. */
    CHECK_STATUS(sb_url_require_signature(m, NULL, 0), SB_OK);
    CHECK_STATUS(sb_url_open(m, "app://A/show?id=7", NULL, &out), SB_OK);
    sb_value_release(out);
    sb_mediator_free(m);
}

/* Handlers of schemes and patterns are reached through them only: no
 * spelling of a name reaches them (issue 19, item 14). */
static int handler_calls;
static sb_status handler(void *u, const sb_value *args, sb_value **out) {
    (void)u;
    handler_calls++;
    *out = sb_value_retain((sb_value *)args);
    return SB_OK;
}

/* Removing a handler only if it is still the caller's: another function or
 * userdata leaves it; the same pair removes it, scheme and pattern too. */
static void test_handlers_removed_if_owned(void) {
    sb_mediator *m = sb_mediator_new();
    int mine = 0, theirs = 0;
    sb_value *out = NULL;
    CHECK_STATUS(sb_scheme_register(m, "hand", handler, &theirs, NULL), SB_OK);
    CHECK_STATUS(sb_url_pattern_add_handler(m, "app://h/:id", handler, &theirs, NULL), SB_OK);
    CHECK_STATUS(sb_scheme_unregister_if(m, "hand", handler, &mine), SB_ENOTFOUND);
    CHECK_STATUS(sb_url_pattern_remove_handler_if(m, "app://h/:id", handler, &mine), SB_ENOTFOUND);
    CHECK_STATUS(sb_scheme_unregister_if(m, "hand", web, &theirs), SB_ENOTFOUND);
    CHECK_STATUS(sb_url_open(m, "hand://x", NULL, &out), SB_OK);
    sb_value_release(out);
    CHECK_STATUS(sb_url_open(m, "app://h/1", NULL, &out), SB_OK);
    sb_value_release(out);
    CHECK_STATUS(sb_scheme_unregister_if(m, "HAND", handler, &theirs), SB_OK); /* schemes in any case */
    CHECK_STATUS(sb_url_pattern_remove_handler_if(m, "app://h/:id", handler, &theirs), SB_OK);
    CHECK_STATUS(sb_url_open(m, "hand://x", NULL, &out), SB_ENOTARGET); /* no connector */
    CHECK(out == NULL);
    CHECK(sb_url_open(m, "app://h/1", NULL, &out) != SB_OK && out == NULL);
    CHECK_STATUS(sb_scheme_unregister_if(m, "hand", handler, &theirs), SB_ENOTFOUND);
    CHECK_STATUS(sb_scheme_unregister_if(NULL, "hand", handler, &theirs), SB_EINVAL);
    CHECK_STATUS(sb_scheme_unregister_if(m, NULL, handler, &theirs), SB_EINVAL);
    CHECK_STATUS(sb_url_pattern_remove_handler_if(m, "app://h/:id", NULL, &theirs), SB_EINVAL);
    /* A scheme connected to targets has no handler to be anyone's. */
    CHECK_STATUS(sb_scheme_register(m, "plain", NULL, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_scheme_unregister_if(m, "plain", handler, NULL), SB_ENOTFOUND);
    sb_mediator_free(m);
}

static void test_handlers_have_no_name(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL, *policy = NULL;
    CHECK_STATUS(sb_json_decode("{\"schemes\": [\"app\", \"https\"]}", &policy), SB_OK);
    handler_calls = 0;
    freed = 0;
    CHECK_STATUS(sb_url_set_policy(m, policy), SB_OK);
    sb_value_release(policy);
    CHECK_STATUS(sb_scheme_register(m, "https", handler, NULL, count_free), SB_OK);
    CHECK_STATUS(sb_url_pattern_add_handler(m, "app://item/<int:id>", handler, NULL, count_free), SB_OK);
    CHECK_STATUS(sb_url_open(m, "https://example.com/x", NULL, &out), SB_OK);
    CHECK_STR(str(out, "host"), "example.com");
    sb_value_release(out);
    CHECK_STATUS(sb_url_open(m, "app://item/7", NULL, &out), SB_OK);
    CHECK(check_int(sb_dict_get(out, "id")) == 7);
    sb_value_release(out);
    out = NULL;
    CHECK(handler_calls == 2);

    static const char *urls[] = {
        "app://scheme%3Ahttps/open?url=https://evil.example/",
        "app://scheme:https/open",
        "app://route%3Aapp%3A%2F%2Fitem%2F%3Cint%3Aid%3E/route?id=not-an-int",
        "app://%00scheme%3Ahttps/open",
    };
    for (size_t i = 0; i < sizeof urls / sizeof *urls; i++) {
        CHECK(sb_url_open(m, urls[i], NULL, &out) != SB_OK && out == NULL);
    }
    CHECK_STATUS(sb_action_perform(m, "scheme:https", "open", NULL, 0, &out), SB_ENOTARGET);
    CHECK_STATUS(sb_action_perform(m, "route:app://item/<int:id>", "route", NULL, 0, &out), SB_ENOTARGET);
    CHECK_STATUS(sb_target_unregister(m, "scheme:https"), SB_ENOTFOUND);
    CHECK(handler_calls == 2 && freed == 0);

    /* The catalogue shows them with their scheme and pattern, not as targets. */
    CHECK_STATUS(sb_routes(m, &out), SB_OK);
    CHECK(sb_value_count(sb_dict_get(out, "targets")) == 0);
    sb_value *pattern = sb_array_get(sb_dict_get(out, "patterns"), 0);
    CHECK(sb_value_get_bool(sb_dict_get(pattern, "handler"), NULL) == 1 && sb_dict_get(pattern, "target") == NULL);
    sb_value_release(out);
    char *json = sb_routes_json(m);
    CHECK(json != NULL && strstr(json, "\"connector\":\"handler\"") != NULL);
    sb_memory_free(json);

    /* A handler for a pattern that ties with another is refused, and freed. */
    CHECK_STATUS(sb_url_pattern_add_handler(m, "app://item/<int:n>", handler, NULL, count_free), SB_EINVAL);
    CHECK(freed == 1);
    CHECK_STATUS(sb_url_pattern_add_handler(m, "app://x/:y", NULL, NULL, count_free), SB_EINVAL);
    CHECK(freed == 2);
    CHECK_STATUS(sb_url_pattern_remove(m, "app://item/<int:id>"), SB_OK);
    CHECK(freed == 3);
    CHECK_STATUS(sb_scheme_unregister(m, "https"), SB_OK);
    CHECK(freed == 4);
    sb_mediator_free(m);
    robustness_row("Hostile URLs: internal handler names (scheme:, route:) from C: by URL, sb_action_perform, "
                   "sb_target_unregister", 7, "SB_ENOTARGET, SB_ENOTFOUND or SB_EBADURL; handlers reached through their scheme or pattern only");
}

/* Found in a hostile review (issue 20): a module key is joined to the
 * target's name ("Mod.T"), so a module beginning with a NUL byte spelled a
 * handler's internal name ("\0scheme:my" + "." + "app"). */
static void ignore_event(void *u, const sb_call_event *event) {
    (void)u;
    (void)event;
}

static void test_module_key_spells_no_handler(void) {
    sb_mediator *m = sb_mediator_new();
    handler_calls = 0;
    CHECK_STATUS(sb_scheme_register(m, "my.app", handler, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_pattern_add_handler(m, "app://h.x", handler, NULL, NULL), SB_OK);
    static const struct { const char *target, *action, *module; size_t length; } calls[] = {
        {"app", "open", "\0scheme:my", 10}, {"x", "route", "\0route:app://h", 14}, {"T", "a", "Mod\0", 4},
    };
    static const char *const keys[] = {SB_MODULE_KEY, SB_MODULE_KEY_CTMEDIATOR};
    int cases = 0;
    for (int hooked = 0; hooked < 2; hooked++) {
        if (hooked) CHECK_STATUS(sb_observer_add(m, ignore_event, NULL, NULL, NULL), SB_OK);
        for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
            for (size_t k = 0; k < 2; k++) {
                sb_value *params = sb_dict_new(), *out = NULL;
                sb_dict_set_new(params, keys[k], sb_string_n(calls[i].module, calls[i].length));
                CHECK_STATUS(sb_action_perform(m, calls[i].target, calls[i].action, params, 0, &out), SB_EINVAL);
                CHECK(out == NULL && ERROR_MENTIONS("module name contains a NUL byte"));
                CHECK_STATUS(sb_action_perform(m, calls[i].target, calls[i].action, params, SB_NO_FALLBACK, &out),
                             SB_EINVAL);
                sb_value_release(params);
                cases++;
            }
        }
    }
    CHECK(handler_calls == 0);
    sb_value *out = NULL;
    CHECK_STATUS(sb_url_open(m, "my.app://anything", NULL, &out), SB_OK);
    CHECK_STR(str(out, "scheme"), "my.app");
    sb_value_release(out);
    CHECK(handler_calls == 1);
    sb_mediator_free(m);
    robustness_row("C module keys spelling a URL handler's internal name (a NUL byte before scheme: or route:), "
                   "either key, with and without hooks", cases, "SB_EINVAL naming the module; no handler runs");
}

/* A class whose instances number themselves, to tell a cached one. */
static int instances_made;
static sb_status numbered_create(void *u, void **state) {
    (void)u;
    *state = (void *)(intptr_t)++instances_made;
    return SB_OK;
}
static sb_status numbered_call(void *u, void *state, const char *action, const sb_value *args, sb_value **out) {
    (void)u;
    (void)action;
    (void)args;
    *out = sb_int((intptr_t)state);
    return SB_OK;
}

/* Found in a hostile review (issue 20): SB_CACHE_TARGET in sb_url_open
 * was honoured only when hooks took the call. */
static void test_url_cache_flag(void) {
    sb_mediator *m = sb_mediator_new();
    static const char *const actions[] = {"n", NULL};
    sb_class_def def = SB_CLASS_DEF_INIT;
    def.actions = actions;
    def.create = numbered_create;
    def.call = numbered_call;
    CHECK_STATUS(sb_class_register(m, "Numbered", &def, NULL, NULL), SB_OK);
    sb_call_options cache = {SB_CALL_OPTIONS_VERSION, SB_CACHE_TARGET, NULL, 0, NULL, 0, NULL};
    for (int hooked = 0; hooked < 2; hooked++) {
        if (hooked) CHECK_STATUS(sb_observer_add(m, ignore_event, NULL, NULL, NULL), SB_OK);
        sb_value *first = NULL, *second = NULL;
        CHECK_STATUS(sb_url_open(m, "app://Numbered/n", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .call = &cache}, &first), SB_OK);
        CHECK_STATUS(sb_url_open(m, "app://Numbered/n", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .call = &cache}, &second), SB_OK);
        CHECK(check_int(first) == check_int(second));
        sb_value_release(first);
        sb_value_release(second);
        CHECK_STATUS(sb_target_evict(m, "Numbered"), SB_OK);
        CHECK_STATUS(sb_url_open(m, "app://Numbered/n", NULL, NULL), SB_OK);
        CHECK_STATUS(sb_target_evict(m, "Numbered"), SB_ENOTFOUND);
    }
    sb_mediator_free(m);
    robustness_row("C URL calls with SB_CACHE_TARGET (sb_url_open), with and without hooks", 4,
                   "the instance is cached on either path; without the flag nothing is");
}

/* The length limit is checked before anything reads the whole URL. */
static void test_length_first(void) {
    static const char key[] = "sixteen bytes and more";
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    size_t size = (size_t)16 << 20;
    char *huge = malloc(size + 1);
    CHECK(huge != NULL);
    if (huge == NULL) return;
    memcpy(huge, "app://A/show?x=", 15);
    memset(huge + 15, 'a', size - 15);
    huge[size] = '\0';
    huge[size - 1] = '\xff'; /* not UTF-8 at the end: the limit must speak first */
    CHECK_STATUS(sb_url_require_signature(m, key, sizeof key - 1), SB_OK);
    CHECK_STATUS(sb_url_open(m, huge, NULL, &out), SB_EBADURL);
    CHECK(ERROR_MENTIONS("longer than 65535"));
    CHECK(sb_url_sign(key, sizeof key - 1, huge, 1) == NULL);
    CHECK(ERROR_MENTIONS("longer than 65535"));
    huge[65535 - 60] = '\0'; /* fits, but not once signed */
    CHECK(sb_url_sign(key, sizeof key - 1, huge, 1) == NULL);
    CHECK(ERROR_MENTIONS("once signed"));
    free(huge);
    sb_mediator_free(m);
    robustness_row("Hostile URLs: a 16 MiB URL from C (signatures required, not UTF-8 at its end) and signing oversized URLs",
                   3, "SB_EBADURL / NULL, decided on the first 64 KiB");
}

/* CTMediator's URL forms: one trailing slash after the action; the
 * fallbacks told the URL; CTMediator's module key refused from a query. */
static void test_ctmediator_forms(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    target_calls = 0;
    CHECK_STATUS(sb_action_register(m, "E", "echo", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_open(m, "app://E/echo/?k=v", NULL, &out), SB_OK);
    CHECK_STR(str(out, "k"), "v");
    sb_value_release(out);
    CHECK_STATUS(sb_url_open(m, "app://E/echo/", NULL, NULL), SB_OK);
    CHECK(target_calls == 2);
    CHECK_STATUS(sb_url_open(m, "app://E/echo//", NULL, NULL), SB_EBADURL);
    CHECK_STATUS(sb_url_open(m, "app://E/echo/more", NULL, NULL), SB_EBADURL);
    CHECK_STATUS(sb_url_open(m, "app://E/echo/more/", NULL, NULL), SB_EBADURL);
    CHECK_STATUS(sb_url_open(m, "app://E/nativeEcho/", NULL, NULL), SB_EREJECTED);
    CHECK_STATUS(sb_url_open(m, "other://E/echo/", NULL, NULL), SB_ENOTARGET); /* only app by default */
    CHECK(target_calls == 2);
    robustness_row("C URLs with a trailing slash (after the action, doubled, after more segments, on a native "
                   "action, another scheme)", 6, "one trailing / is ignored as CTMediator does; the rest refused");

    /* NoTargetAction learns the URL of a remote call, with or without hooks. */
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_open(m, "app://Ghost/boo?k=v", NULL, &out), SB_OK);
    CHECK_STR(str(out, "url"), "app://Ghost/boo?k=v");
    CHECK_STR(str(out, "targetString"), "Target_Ghost");
    CHECK_STR(str(out, "selectorString"), "Action_boo:");
    CHECK_STR(str(out, "target"), "Ghost");
    CHECK_STR(str(out, "action"), "boo");
    CHECK_STR(str(sb_dict_get(out, "originParams"), "k"), "v");
    sb_value_release(out);
    sb_call_options opts = SB_CALL_OPTIONS_INIT;
    CHECK_STATUS(sb_url_open(m, "app://Ghost/boo", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .call = &opts}, &out), SB_OK);
    CHECK_STR(str(out, "url"), "app://Ghost/boo");
    sb_value_release(out);
    CHECK_STATUS(sb_action_perform(m, "Ghost", "boo", NULL, 0, &out), SB_OK);
    CHECK(sb_dict_get(out, "url") == NULL);
    sb_value_release(out);

    /* The module key, in either spelling, never comes from a URL. */
    target_calls = 0;
    CHECK_STATUS(sb_url_open(m, "app://E/echo?" SB_MODULE_KEY_CTMEDIATOR "=Mod", NULL, NULL), SB_EREJECTED);
    CHECK(ERROR_MENTIONS(SB_MODULE_KEY_CTMEDIATOR) && ERROR_MENTIONS("cannot come from a URL"));
    CHECK_STATUS(sb_url_open(m, "app://E/echo?" SB_MODULE_KEY_CTMEDIATOR "=", NULL, NULL), SB_EREJECTED);
    CHECK_STATUS(sb_url_open(m, "app://E/echo?" SB_MODULE_KEY_CTMEDIATOR "=Mod", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .call = &opts}, NULL),
                 SB_EREJECTED);
    CHECK_STATUS(sb_url_open(m, "app://E/echo?" SB_MODULE_KEY "=Mod", NULL, NULL), SB_EREJECTED);
    CHECK(target_calls == 0);
    robustness_row("C URLs whose query sets CTMediator's module key (a module, empty, with options)", 3,
                   "SB_EREJECTED; no target code runs");
    sb_mediator_free(m);
}

/* The URL parser attacked from C: native spelled with escapes, in a part
 * whose escapes stay literal, deep percent-encoding, bytes that do not
 * decode to UTF-8, hosts RFC 3986 does not allow, ports, sizes. */
static sb_status secret(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    (void)params;
    target_calls += 1000;
    *out = sb_string("leaked");
    return SB_OK;
}

static char *repeated(const char *head, const char *unit, size_t times) {
    size_t head_length = strlen(head), unit_length = strlen(unit);
    char *text = malloc(head_length + unit_length * times + 1);
    if (text == NULL) return NULL;
    memcpy(text, head, head_length);
    for (size_t i = 0; i < times; i++) memcpy(text + head_length + i * unit_length, unit, unit_length);
    text[head_length + unit_length * times] = '\0';
    return text;
}

static void test_hostile_parser(void) {
    static const struct { const char *url; sb_status expected; } cases[] = {
        {"app://A/%6EativeSecret", SB_EREJECTED},
        {"app://A/%4EATIVE", SB_EREJECTED},
        {"aPp://A/n%61tiveSecret?x=1#frag", SB_EREJECTED},
        {"app://A/native%7B", SB_EREJECTED},
        {"app://A/native{", SB_EREJECTED},
        {"app://A/%6EativeSecret?x={}", SB_EREJECTED},
        /* A path with a character RFC 3986 leaves out keeps its escapes: "%6Eative{", no such action. */
        {"app://A/%6Eative{", SB_ENOACTION},
        {"app://A/%2525252536EativeSecret", SB_ENOACTION},
        {"app://A/%C0%AF", SB_EBADURL},
        {"app://A/%ED%A0%80", SB_EBADURL},
        {"app://A/%F4%90%80%80", SB_EBADURL},
        {"app://A/show?x=%E4%B8", SB_EBADURL},
        {"app://A/show?%80=1", SB_EBADURL},
        {"app://A%00/show", SB_EBADURL},
        {"app://A]/show", SB_EBADURL},
        {"app://A\"/show", SB_EBADURL},
        {"app://[::1]x/show", SB_EBADURL},
        {"app://[::%2e]/show", SB_EBADURL},
        {"addressbook://A:zz/show", SB_EBADURL},
        {"app://A:x/show", SB_EBADURL},
        {"app://@A/show", SB_EBADURL},
        {"app://A:0/show", SB_EBADURL},
        {"app://A:/show", SB_OK},
        {"app://A/show?x=1#y=2&native", SB_OK},
        {"app://[::1]/show", SB_OK},
    };
    sb_mediator *m = sb_mediator_new();
    target_calls = 0;
    CHECK_STATUS(sb_action_register(m, "A", "show", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "[::1]", "show", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "A", "nativeSecret", secret, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "A", "NATIVE", secret, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "A", "native{", secret, NULL, NULL), SB_OK);
    int expected_calls = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CHECK_STATUS(sb_url_open(m, cases[i].url, NULL, NULL), cases[i].expected);
        if (cases[i].expected != SB_OK) CHECK(sb_error_message() != NULL && sb_error_message()[0] != '\0');
        expected_calls += cases[i].expected == SB_OK;
    }
    CHECK(target_calls == expected_calls);

    /* Sizes: 64 KiB of escapes parses; 1 MB, 65,000 slashes and 32,000 segments are refused. */
    sb_value *out = NULL;
    char *escapes = repeated("app://A/show?x=", "%41", 21840);
    CHECK_STATUS(sb_url_open(m, escapes, NULL, &out), SB_OK);
    CHECK(sb_value_get_string(sb_dict_get(out, "x"), NULL) != NULL && strlen(str(out, "x")) == 21840);
    sb_value_release(out);
    free(escapes);
    char *megabyte = repeated("app://A/show?x=", "a", (size_t)1 << 20);
    CHECK_STATUS(sb_url_open(m, megabyte, NULL, NULL), SB_EBADURL);
    free(megabyte);
    char *slashes = repeated("app://A", "/", 65000);
    CHECK_STATUS(sb_url_open(m, slashes, NULL, NULL), SB_EBADURL);
    CHECK(ERROR_MENTIONS("path segments; the limit is 64"));
    free(slashes);
    char *ats = repeated("app://", "@", 65000);
    CHECK_STATUS(sb_url_open(m, ats, NULL, NULL), SB_EBADURL);
    free(ats);
    CHECK(target_calls == expected_calls + 1);
    sb_mediator_free(m);
    robustness_row("Hostile URLs from C against the single-pass parser: native spelled with escapes (and in a part "
                   "whose escapes stay literal), %25 chains, bytes that are not UTF-8 once decoded, hosts RFC 3986 "
                   "does not allow, stray % in an IPv6 literal, ports, userinfo, 64 KiB of escapes, 1 MB, 65,000 / or @",
                   29, "refused with the listed status and a message; no native action runs");
}

/* Options structs are read as far as their version says they go, the
 * version first: each struct here ends where a page the process may not
 * read begins, so a read past it crashes the suite. */
static void test_options_read_no_further_than_they_go(void) {
    long page = sysconf(_SC_PAGESIZE);
    int zero = open("/dev/zero", O_RDWR);
    unsigned char *pages = zero < 0 ? MAP_FAILED
                                    : mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE, zero, 0);
    if (zero >= 0) close(zero);
    CHECK(pages != MAP_FAILED);
    if (pages == MAP_FAILED) return;
    CHECK(mprotect(pages + page, (size_t)page, PROT_NONE) == 0);
    unsigned char *end = pages + page;

    /* A whole version-1 struct is read, and nothing after it. */
    sb_call_options *call = (sb_call_options *)(void *)(end - sizeof(sb_call_options));
    *call = (sb_call_options)SB_CALL_OPTIONS_INIT;
    sb_url_options options = SB_URL_OPTIONS_INIT;
    options.call = call;

    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_register(m, "A", "show", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_open(m, "app://A/show?x=1", &options, &out), SB_OK);
    CHECK_STR(str(out, "x"), "1");
    sb_value_release(out);
    out = NULL;
    CHECK_STATUS(sb_action_perform_opts(m, "A", "show", NULL, call, &out), SB_OK);
    sb_value_release(out);
    out = NULL;
    call->flags = SB_CACHE_TARGET;
    CHECK_STATUS(sb_url_open(m, "app://A/show", &options, &out), SB_OK);
    sb_value_release(out);
    out = NULL;

    /* A version this library cannot read is refused after reading the
     * version alone: structs that are only their version, at the page's end. */
    int *version_only = (int *)(void *)(end - sizeof(int));
    *version_only = 0;
    CHECK_STATUS(sb_url_open(m, "app://A/show", (const sb_url_options *)(void *)version_only, &out), SB_EINVAL);
    CHECK(ERROR_MENTIONS("version 0") && out == NULL);
    *version_only = SB_CALL_OPTIONS_VERSION + 1;
    CHECK_STATUS(sb_action_perform_opts(m, "A", "show", NULL, (const sb_call_options *)(void *)version_only, &out),
                 SB_EINVAL);
    CHECK(ERROR_MENTIONS("newer") && out == NULL);
    options.call = (const sb_call_options *)(void *)version_only;
    CHECK_STATUS(sb_url_open(m, "app://A/show", &options, &out), SB_EINVAL);
    CHECK(out == NULL);
    sb_mediator_free(m);
    munmap(pages, (size_t)page * 2);
    robustness_row("C options structs ending at an unreadable page (a whole version-1 sb_call_options; "
                   "sb_url_options and sb_call_options that are only their version, 0 or newer)", 6,
                   "a version is read before anything else, and a struct no further than its version has; no read past the struct");
}

int main(void) {
    test_hostile_parser();
    test_ctmediator_forms();
    test_open();
    test_signed();
    test_policy();
    test_schemes_and_patterns();
    test_handlers_have_no_name();
    test_module_key_spells_no_handler();
    test_url_cache_flag();
    test_handlers_removed_if_owned();
    test_length_first();
    test_options_read_no_further_than_they_go();
    return check_report("urls");
}
