/* The URL router's 1.1 functions from C: lookups, URLs built from patterns,
 * converters, the unmatched-URL fallback, removing a scheme's patterns, the
 * router's keys; with NULL arguments, hostile lengths and converters that
 * fail or re-enter. A few of the peers' cases (JLRoutes, URLNavigator,
 * MGJRouter) as a C program writes them; the Swift suites port them all. */
#include "check.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

static int echo_calls;
static sb_status echo(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    echo_calls++;
    *out = sb_value_retain((sb_value *)params);
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

/* <greeting:name>: "Hello, name!" (URLNavigator's custom type). */
static sb_status greeting(void *u, const sb_value *segment, sb_value **out) {
    char text[256];
    (void)u;
    snprintf(text, sizeof text, "Hello, %s!", sb_value_get_string(segment, NULL));
    *out = sb_string(text);
    return SB_OK;
}

/* <even:n>: an even number as an int; declines anything else. */
static sb_status even(void *u, const sb_value *segment, sb_value **out) {
    const char *text = sb_value_get_string(segment, NULL);
    char *end = NULL;
    long long n = strtoll(text, &end, 10);
    (void)u;
    if (*text != '\0' && *end == '\0' && n % 2 == 0) *out = sb_int(n);
    return SB_OK; /* *out stays NULL: declined */
}

/* <broken:x>: fails with its own status. */
static sb_status broken(void *u, const sb_value *segment, sb_value **out) {
    (void)u;
    (void)segment;
    (void)out;
    sb_error_set("the converter broke");
    return SB_EPARAMS;
}

/* <nullish:x>: answers null, which declines. */
static sb_status nullish(void *u, const sb_value *segment, sb_value **out) {
    (void)u;
    (void)segment;
    *out = sb_null();
    return SB_OK;
}

/* <chain:n>: n arrays, each inside the next. */
static sb_status chain(void *u, const sb_value *segment, sb_value **out) {
    long n = strtol(sb_value_get_string(segment, NULL), NULL, 10);
    sb_value *v = sb_array_new();
    (void)u;
    for (long i = 1; i < n && v != NULL; i++) {
        sb_value *outer = sb_array_new();
        if (outer == NULL || sb_array_append_new(outer, v) != SB_OK) {
            sb_value_release(outer);
            return SB_ENOMEM;
        }
        v = outer;
    }
    *out = v;
    return v != NULL ? SB_OK : SB_ENOMEM;
}

/* <deep:x>: opens a URL that matches itself again, until the depth limit. */
static sb_status deep(void *m, const sb_value *segment, sb_value **out) {
    char url[128];
    snprintf(url, sizeof url, "p://deep/%s", sb_value_get_string(segment, NULL));
    return sb_url_open(m, url, NULL, out);
}

static void test_lookup(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    echo_calls = 0;
    CHECK_STATUS(sb_action_register(m, "T", "echo", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_pattern_add(m, "app://user/<int:id>", "T", "echo"), SB_OK);
    CHECK_STATUS(sb_url_lookup(m, "app://user/42?tab=posts", &out), SB_OK);
    CHECK_STR(str(out, "kind"), "pattern");
    CHECK_STR(str(out, "target"), "T");
    CHECK_STR(str(out, "pattern"), "app://user/<int:id>");
    CHECK(check_int(sb_dict_get(sb_dict_get(out, "params"), "id")) == 42);
    CHECK_STR(str(sb_dict_get(out, "params"), SB_PATTERN_KEY), "app://user/<int:id>");
    CHECK_STR(str(sb_dict_get(out, "params"), SB_SCHEME_KEY), "app");
    CHECK_STR(str(sb_dict_get(out, "params"), SB_URL_KEY), "app://user/42?tab=posts");
    sb_value_release(out);
    CHECK_STATUS(sb_url_lookup(m, "app://T/echo", NULL), SB_OK); /* out may be NULL */
    CHECK(echo_calls == 0);
    /* Failures as the call's, with *out NULL. */
    out = sb_int(1);
    CHECK_STATUS(sb_url_lookup(m, "app://T/nativeX", &out), SB_EREJECTED);
    CHECK(out == NULL);
    CHECK_STATUS(sb_url_lookup(m, "nope://x", &out), SB_ENOTARGET);
    CHECK_STATUS(sb_url_lookup(m, "app://T/echo?switchboard.url=x", &out), SB_EREJECTED);
    CHECK_STATUS(sb_url_lookup(m, "app://\xff/x", &out), SB_EBADURL);
    CHECK_STATUS(sb_url_lookup(NULL, "app://T/echo", &out), SB_EINVAL);
    CHECK_STATUS(sb_url_lookup(m, NULL, &out), SB_EINVAL);
    /* A 16 MiB URL is measured up to the limit, not read. */
    size_t size = 16u << 20;
    char *huge = malloc(size + 1);
    if (huge != NULL) {
        memset(huge, 'a', size);
        memcpy(huge, "app://T/", 8);
        huge[size] = '\0';
        CHECK_STATUS(sb_url_lookup(m, huge, &out), SB_EBADURL);
        CHECK(ERROR_MENTIONS("longer than 65535"));
        char *built = NULL;
        CHECK_STATUS(sb_url_build(m, huge, NULL, &built), SB_EINVAL);
        CHECK(built == NULL);
        free(huge);
    }
    CHECK(echo_calls == 0);
    sb_mediator_free(m);
}

/* The answer's keys and values, in order, as JSON. */
static int answer_is(sb_mediator *m, const char *url, const char *expected) {
    sb_value *out = NULL;
    if (sb_url_lookup(m, url, &out) != SB_OK) return 0;
    char *json = sb_json_encode(out);
    int same = json != NULL && strcmp(json, expected) == 0;
    if (!same) fprintf(stderr, "  %s\n  got      %s\n  expected %s\n", url, json ? json : "(null)", expected);
    sb_memory_free(json);
    sb_value_release(out);
    return same;
}

/* Every shape of answer, key by key; answers that share their names with
 * the one before stay each the caller's own. */
static void test_lookup_answers(void) {
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(m, "T", "echo", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "U", "run", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_pattern_add(m, "app://user/<int:id>", "T", "echo"), SB_OK);
    CHECK_STATUS(sb_url_pattern_add(m, "app://job/:name", "U", "run"), SB_OK);
    CHECK_STATUS(sb_url_pattern_add_handler(m, "app://h/:x", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_fallback_set_handler(m, "shop", echo, NULL, NULL), SB_OK);
    CHECK(answer_is(m, "app://user/7?tab=a",
                    "{\"kind\":\"pattern\",\"scheme\":\"app\",\"target\":\"T\",\"action\":\"echo\",\"handler\":false,"
                    "\"pattern\":\"app://user/<int:id>\",\"params\":{\"tab\":\"a\",\"id\":7,"
                    "\"switchboard.pattern\":\"app://user/<int:id>\",\"switchboard.scheme\":\"app\","
                    "\"switchboard.url\":\"app://user/7?tab=a\"}}"));
    CHECK(answer_is(m, "app://T/echo?k=v",
                    "{\"kind\":\"targets\",\"scheme\":\"app\",\"target\":\"T\",\"action\":\"echo\",\"handler\":false,"
                    "\"params\":{\"k\":\"v\"}}"));
    CHECK(answer_is(m, "app://h/1",
                    "{\"kind\":\"pattern\",\"scheme\":\"app\",\"handler\":true,\"pattern\":\"app://h/:x\","
                    "\"params\":{\"x\":\"1\",\"switchboard.pattern\":\"app://h/:x\",\"switchboard.scheme\":\"app\","
                    "\"switchboard.url\":\"app://h/1\"}}"));
    CHECK(answer_is(m, "shop://cart",
                    "{\"kind\":\"fallback\",\"scheme\":\"shop\",\"handler\":true,\"params\":{\"url\":\"shop://cart\","
                    "\"scheme\":\"shop\",\"host\":\"cart\",\"path\":[],\"query\":{}}}"));

    /* Held answers keep their names whatever later lookups find, and one
     * changed by its caller changes alone. */
    sb_value *a = NULL, *b = NULL, *c = NULL;
    CHECK_STATUS(sb_url_lookup(m, "app://user/1", &a), SB_OK);
    CHECK_STATUS(sb_url_lookup(m, "app://job/x", &b), SB_OK);
    CHECK_STATUS(sb_url_lookup(m, "app://user/2", &c), SB_OK);
    CHECK_STR(str(a, "target"), "T");
    CHECK_STR(str(a, "action"), "echo");
    CHECK_STR(str(b, "target"), "U");
    CHECK_STR(str(b, "action"), "run");
    CHECK_STR(str(c, "target"), "T");
    CHECK_STATUS(sb_dict_set_new(a, "target", sb_string("Changed")), SB_OK);
    CHECK_STR(str(c, "target"), "T");
    sb_value_release(a);
    CHECK_STATUS(sb_url_lookup(m, "app://user/3", &a), SB_OK);
    CHECK_STR(str(a, "target"), "T");
    sb_value_release(a);
    sb_value_release(b);
    sb_value_release(c);
    sb_mediator_free(m);
}

/* Threads looking up URLs of two destinations at once each get their own
 * destination's names (the names a lookup keeps for the next are taken by
 * one lookup at a time). */
enum { LOOKUP_THREADS = 4, LOOKUPS = 2000 };
static sb_mediator *lookup_mediator;
static void *lookup_worker(void *arg) {
    long wrong = 0, n = (long)(intptr_t)arg;
    for (int i = 0; i < LOOKUPS; i++) {
        int second = (i + n) % 2;
        sb_value *out = NULL;
        if (sb_url_lookup(lookup_mediator, second ? "app://job/x" : "app://user/1", &out) != SB_OK) {
            wrong++;
            continue;
        }
        const char *target = str(out, "target"), *action = str(out, "action");
        if (target == NULL || action == NULL || strcmp(target, second ? "U" : "T") != 0 ||
            strcmp(action, second ? "run" : "echo") != 0)
            wrong++;
        sb_value_release(out);
    }
    return (void *)(intptr_t)wrong;
}

static void test_lookup_threads(void) {
    lookup_mediator = sb_mediator_new();
    CHECK_STATUS(sb_action_register(lookup_mediator, "T", "echo", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(lookup_mediator, "U", "run", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_pattern_add(lookup_mediator, "app://user/<int:id>", "T", "echo"), SB_OK);
    CHECK_STATUS(sb_url_pattern_add(lookup_mediator, "app://job/:name", "U", "run"), SB_OK);
    pthread_t threads[LOOKUP_THREADS];
    for (long i = 0; i < LOOKUP_THREADS; i++)
        CHECK(pthread_create(&threads[i], NULL, lookup_worker, (void *)(intptr_t)i) == 0);
    long wrong = 0;
    for (int i = 0; i < LOOKUP_THREADS; i++) {
        void *result = NULL;
        CHECK(pthread_join(threads[i], &result) == 0);
        wrong += (long)(intptr_t)result;
    }
    CHECK(wrong == 0);
    sb_mediator_free(lookup_mediator);
}

static void test_build(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *params = sb_dict_new(), *out = NULL;
    char *url = NULL;
    CHECK_STATUS(sb_action_register(m, "T", "echo", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_pattern_add(m, "mgj://search/:keyword(/<int:page>)", "T", "echo"), SB_OK);
    sb_dict_set_new(params, "keyword", sb_string("Hang zhou/+"));
    sb_dict_set_new(params, "page", sb_int(2));
    sb_dict_set_new(params, "from", sb_string("a&b"));
    CHECK_STATUS(sb_url_build(m, "mgj://search/:keyword(/<int:page>)", params, &url), SB_OK);
    CHECK_STR(url, "mgj://search/Hang%20zhou%2F%2B/2?from=a%26b");
    /* Matching it gives the params back. */
    CHECK_STATUS(sb_url_open(m, url, NULL, &out), SB_OK);
    CHECK_STR(str(out, "keyword"), "Hang zhou/+");
    CHECK(check_int(sb_dict_get(out, "page")) == 2);
    CHECK_STR(str(out, "from"), "a&b");
    sb_value_release(out);
    sb_memory_free(url);
    url = NULL;
    /* Refusals: *out NULL, the status says which. */
    sb_dict_set_new(params, "page", sb_string("2"));
    CHECK_STATUS(sb_url_build(m, "mgj://search/:keyword(/<int:page>)", params, &url), SB_EPARAMS);
    CHECK(url == NULL && ERROR_MENTIONS("needs an int"));
    CHECK_STATUS(sb_url_build(m, "mgj://search/:keyword", NULL, &url), SB_EPARAMS);
    CHECK(ERROR_MENTIONS("needs a value for \"keyword\""));
    CHECK_STATUS(sb_url_build(m, "mgj://a//b", NULL, &url), SB_EINVAL);
    sb_value *one = sb_int(1);
    CHECK_STATUS(sb_url_build(m, "mgj://a", one, &url), SB_ETYPE);
    sb_value_release(one);
    CHECK_STATUS(sb_url_build(NULL, "mgj://a", NULL, &url), SB_EINVAL);
    CHECK_STATUS(sb_url_build(m, NULL, NULL, &url), SB_EINVAL);
    CHECK_STATUS(sb_url_build(m, "mgj://a", NULL, NULL), SB_EINVAL);
    CHECK_STATUS(sb_url_build(m, "mgj://\xff", NULL, &url), SB_EINVAL);
    CHECK(url == NULL);
    /* 30,000 segments fit in 64 KiB, but a URL has at most 64 path
     * segments: refused when added, as when built (hostile pass). */
    size_t count = 30000;
    char *deep = malloc(7 + 2 * count + 1);
    if (deep != NULL) {
        memcpy(deep, "mgj://h", 7);
        for (size_t i = 0; i < count; i++) memcpy(deep + 7 + 2 * i, "/s", 2);
        deep[7 + 2 * count] = '\0';
        CHECK_STATUS(sb_url_pattern_add(m, deep, "T", "echo"), SB_EINVAL);
        CHECK(ERROR_MENTIONS("no URL could match it"));
        CHECK_STATUS(sb_url_build(m, deep, NULL, &url), SB_EINVAL);
        CHECK(url == NULL);
        free(deep);
    }
    sb_value_release(params);
    sb_mediator_free(m);
}

static void test_converters(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    freed = 0;
    CHECK_STATUS(sb_action_register(m, "T", "echo", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_converter_add(m, "greeting", greeting, NULL, count_free), SB_OK);
    CHECK_STATUS(sb_url_converter_add(m, "even", even, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_converter_add(m, "broken", broken, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_converter_add(m, "nullish", nullish, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_converter_add(m, "deep", deep, m, NULL), SB_OK);
    CHECK_STATUS(sb_url_pattern_add(m, "myapp://hello/<greeting:name>", "T", "echo"), SB_OK);
    CHECK_STATUS(sb_url_pattern_add(m, "p://n/<even:n>", "T", "echo"), SB_OK);
    CHECK_STATUS(sb_url_pattern_add(m, "p://n/:other", "T", "echo"), SB_OK);
    CHECK_STATUS(sb_url_pattern_add(m, "p://b/<broken:x>", "T", "echo"), SB_OK);
    CHECK_STATUS(sb_url_pattern_add(m, "p://z/<nullish:x>", "T", "echo"), SB_OK);
    CHECK_STATUS(sb_url_pattern_add(m, "p://deep/<deep:x>", "T", "echo"), SB_OK);
    CHECK_STATUS(sb_url_converter_add(m, "chain", chain, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_pattern_add(m, "p://c/<chain:n>", "T", "echo"), SB_OK);

    CHECK_STATUS(sb_url_open(m, "myapp://hello/devxoul", NULL, &out), SB_OK);
    CHECK_STR(str(out, "name"), "Hello, devxoul!");
    sb_value_release(out);
    CHECK_STATUS(sb_url_open(m, "p://n/4", NULL, &out), SB_OK);
    CHECK(check_int(sb_dict_get(out, "n")) == 4);
    sb_value_release(out);
    CHECK_STATUS(sb_url_open(m, "p://n/5", NULL, &out), SB_OK); /* declined: :other */
    CHECK_STR(str(out, "other"), "5");
    sb_value_release(out);
    CHECK_STATUS(sb_url_open(m, "p://b/x", NULL, &out), SB_EPARAMS);
    CHECK(ERROR_MENTIONS("the converter broke"));
    CHECK_STATUS(sb_url_open(m, "p://z/x", NULL, &out), SB_ENOTARGET);
    CHECK_STATUS(sb_url_open(m, "p://deep/x", NULL, &out), SB_EREJECTED); /* the depth limit */
    /* Params as deep as SB_MAX_DEPTH allows reach the action, but do not fit
     * in a lookup's answer, one level further down (switchboard.h says so). */
    CHECK_STATUS(sb_url_open(m, "p://c/199", NULL, &out), SB_OK);
    sb_value_release(out);
    CHECK_STATUS(sb_url_lookup(m, "p://c/198", &out), SB_OK);
    sb_value_release(out);
    CHECK_STATUS(sb_url_lookup(m, "p://c/199", &out), SB_EINVAL);
    CHECK(out == NULL && ERROR_MENTIONS("SB_MAX_DEPTH"));

    /* Names: not a built-in type, ASCII identifier characters; userdata freed on refusal. */
    CHECK_STATUS(sb_url_converter_add(m, "int", greeting, NULL, count_free), SB_EINVAL);
    CHECK_STATUS(sb_url_converter_add(m, "a-b", greeting, NULL, count_free), SB_EINVAL);
    CHECK_STATUS(sb_url_converter_add(m, NULL, greeting, NULL, count_free), SB_EINVAL);
    CHECK_STATUS(sb_url_converter_add(m, "x", NULL, NULL, count_free), SB_EINVAL);
    CHECK_STATUS(sb_url_converter_add(NULL, "x", greeting, NULL, count_free), SB_EINVAL);
    CHECK(freed == 5);
    CHECK_STATUS(sb_url_pattern_add(m, "p://u/<unknown:x>", "T", "echo"), SB_EINVAL);
    CHECK(ERROR_MENTIONS("not registered"));

    /* Removal: _if only with the same function and userdata; then the
     * pattern declines there. Replacing releases the old userdata once. */
    CHECK_STATUS(sb_url_converter_remove_if(m, "greeting", greeting, &freed), SB_ENOTFOUND);
    CHECK_STATUS(sb_url_converter_add(m, "greeting", greeting, NULL, count_free), SB_OK);
    CHECK(freed == 6);
    CHECK_STATUS(sb_url_converter_remove_if(m, "greeting", greeting, NULL), SB_OK);
    CHECK(freed == 7);
    CHECK_STATUS(sb_url_open(m, "myapp://hello/devxoul", NULL, &out), SB_ENOTARGET);
    CHECK_STATUS(sb_url_converter_remove(m, "greeting"), SB_ENOTFOUND);
    CHECK_STATUS(sb_url_converter_remove(m, "even"), SB_OK);
    CHECK_STATUS(sb_url_converter_remove(NULL, "even"), SB_EINVAL);
    CHECK_STATUS(sb_url_converter_remove_if(m, "even", NULL, NULL), SB_EINVAL);
    sb_mediator_free(m);
    robustness_row("C URL converters that fail with a status, answer null, re-enter sb_url_open without end, and "
                   "converter names that are built-in types, not identifiers or NULL", 9,
                   "the failure's status, declined, the depth limit (EREJECTED), EINVAL with userdata freed once");
}

static int fallback_calls;
static sb_status fallback(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    fallback_calls++;
    *out = sb_value_retain((sb_value *)params);
    return SB_OK;
}

static void test_fallback(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    freed = 0;
    fallback_calls = 0;
    CHECK_STATUS(sb_action_register(m, "T", "echo", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_pattern_add(m, "shop://item/<int:id>", "T", "echo"), SB_OK);
    CHECK_STATUS(sb_url_open(m, "shop://cart", NULL, &out), SB_ENOTARGET);
    CHECK(ERROR_MENTIONS("no pattern of the scheme \"shop\" matches"));
    CHECK_STATUS(sb_url_open(m, "app://a/b/c/d", NULL, &out), SB_EBADURL);

    CHECK_STATUS(sb_url_fallback_set_handler(m, "SHOP", fallback, NULL, count_free), SB_OK);
    CHECK_STATUS(sb_url_open(m, "shop://cart?x=1", NULL, &out), SB_OK);
    CHECK_STR(str(out, "url"), "shop://cart?x=1");
    CHECK_STR(str(out, "host"), "cart");
    CHECK_STR(str(sb_dict_get(out, "query"), "x"), "1");
    sb_value_release(out);
    CHECK(fallback_calls == 1);
    /* Every scheme's, by target and action; the scheme's own comes first. */
    CHECK_STATUS(sb_url_fallback_set(m, NULL, "T", "echo"), SB_OK);
    CHECK_STATUS(sb_url_open(m, "app://a/b/c/d", NULL, &out), SB_OK);
    CHECK_STR(str(out, "scheme"), "app");
    sb_value_release(out);
    CHECK_STATUS(sb_url_lookup(m, "shop://cart", &out), SB_OK);
    CHECK_STR(str(out, "kind"), "fallback");
    CHECK(sb_dict_get(out, "target") == NULL);
    int handler = 0;
    CHECK(sb_value_get_bool(sb_dict_get(out, "handler"), &handler) == SB_OK && handler);
    sb_value_release(out);
    /* The handler has no name a URL could spell: a NUL is refused. */
    CHECK_STATUS(sb_url_open(m, "app://%00unmatched%3Ashop/open", NULL, &out), SB_EBADURL);

    /* The policy holds for it. */
    sb_value *policy = NULL;
    CHECK_STATUS(sb_json_decode("{\"targets\": [\"Other\"]}", &policy), SB_OK);
    CHECK_STATUS(sb_url_set_policy(m, policy), SB_OK);
    CHECK_STATUS(sb_url_open(m, "app://a/b/c/d", NULL, &out), SB_EREJECTED);
    CHECK_STATUS(sb_url_open(m, "shop://cart", NULL, &out), SB_OK); /* a handler: admitted by its scheme */
    sb_value_release(out);
    sb_value_release(policy);
    CHECK_STATUS(sb_url_set_policy(m, NULL), SB_OK);

    /* Removal: _if only with the same function and userdata. */
    CHECK_STATUS(sb_url_fallback_remove_handler_if(m, "shop", fallback, &freed), SB_ENOTFOUND);
    CHECK_STATUS(sb_url_fallback_remove_handler_if(m, "shop", fallback, NULL), SB_OK);
    CHECK(freed == 1);
    CHECK_STATUS(sb_url_fallback_remove_handler_if(m, NULL, fallback, NULL), SB_ENOTFOUND); /* T.echo is no handler */
    CHECK_STATUS(sb_url_fallback_remove(m, "shop"), SB_ENOTFOUND);
    CHECK_STATUS(sb_url_fallback_remove(m, NULL), SB_OK);
    CHECK_STATUS(sb_url_fallback_remove(m, NULL), SB_ENOTFOUND);
    CHECK_STATUS(sb_url_open(m, "shop://cart", NULL, &out), SB_ENOTARGET);

    /* Bad arguments; the userdata is freed when the handler is refused. */
    CHECK_STATUS(sb_url_fallback_set_handler(m, "1bad", fallback, NULL, count_free), SB_EINVAL);
    CHECK_STATUS(sb_url_fallback_set_handler(m, "", fallback, NULL, count_free), SB_EINVAL);
    CHECK_STATUS(sb_url_fallback_set_handler(m, "x", NULL, NULL, count_free), SB_EINVAL);
    CHECK_STATUS(sb_url_fallback_set_handler(NULL, "x", fallback, NULL, count_free), SB_EINVAL);
    CHECK(freed == 5);
    CHECK_STATUS(sb_url_fallback_set(m, "x", NULL, "a"), SB_EINVAL);
    CHECK_STATUS(sb_url_fallback_set(m, "x", "T", ""), SB_EINVAL);
    CHECK_STATUS(sb_url_fallback_remove(NULL, NULL), SB_EINVAL);
    /* Freeing the mediator releases a handler still set. */
    CHECK_STATUS(sb_url_fallback_set_handler(m, NULL, fallback, NULL, count_free), SB_OK);
    sb_mediator_free(m);
    CHECK(freed == 6);
}

static void test_keys_and_user_port(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    echo_calls = 0;
    CHECK_STATUS(sb_action_register(m, "T", "echo", echo, NULL, NULL), SB_OK);
    /* No pattern: the plain URL call hands these to the general path, which refuses them. */
    CHECK_STATUS(sb_url_open(m, "app://T/echo?switchboard.pattern=x", NULL, &out), SB_EREJECTED);
    CHECK_STATUS(sb_url_open(m, "app://T/echo?switchboard.", NULL, &out), SB_EREJECTED);
    CHECK_STATUS(sb_url_open(m, "app://T/echo?switchboard%2Eurl=1", NULL, &out), SB_EREJECTED);
    CHECK_STATUS(sb_url_open(m, "app://T/echo?switchboardx=1", NULL, &out), SB_OK);
    sb_value_release(out);
    CHECK(echo_calls == 1);
    /* User and port: no route (the message says why). */
    CHECK_STATUS(sb_url_pattern_add(m, "p://h/:x", "T", "echo"), SB_OK);
    CHECK_STATUS(sb_url_open(m, "p://me@h/1", NULL, &out), SB_EBADURL);
    CHECK(ERROR_MENTIONS("user, password or port"));
    CHECK_STATUS(sb_url_open(m, "p://h:8080/1", NULL, &out), SB_EBADURL);
    CHECK(echo_calls == 1);
    sb_mediator_free(m);
    robustness_row("C URLs whose query sets a library key (switchboard.pattern, switchboard., escaped dot) on the "
                   "plain path, and URLs with a user or port for a pattern", 5,
                   "EREJECTED before any target; EBADURL naming the rule");
}

static void test_remove_scheme(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    freed = 0;
    CHECK_STATUS(sb_action_register(m, "T", "echo", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_pattern_add(m, "ns://test1", "T", "echo"), SB_OK);
    CHECK_STATUS(sb_url_pattern_add_handler(m, "ns://test2(/:x)", echo, NULL, count_free), SB_OK);
    CHECK_STATUS(sb_url_pattern_add(m, "other://test1", "T", "echo"), SB_OK);
    CHECK_STATUS(sb_url_pattern_remove_scheme(m, "NS", &out), SB_OK);
    CHECK(sb_value_count(out) == 2);
    CHECK_STR(sb_value_get_string(sb_array_get(out, 0), NULL), "ns://test1");
    CHECK_STR(sb_value_get_string(sb_array_get(out, 1), NULL), "ns://test2(/:x)");
    sb_value_release(out);
    CHECK(freed == 1); /* the handler went with its pattern */
    CHECK_STATUS(sb_url_open(m, "ns://test1", NULL, &out), SB_ENOTARGET);
    CHECK_STATUS(sb_url_open(m, "other://test1", NULL, &out), SB_OK);
    sb_value_release(out);
    CHECK_STATUS(sb_url_pattern_remove_scheme(m, "ns", NULL), SB_ENOTFOUND);
    CHECK_STATUS(sb_url_pattern_remove_scheme(m, NULL, &out), SB_EINVAL);
    CHECK_STATUS(sb_url_pattern_remove_scheme(NULL, "ns", &out), SB_EINVAL);
    CHECK(out == NULL);
    sb_mediator_free(m);
}

/* JLRoutes' testOptionalRoutesAtStart and URLNavigator's path-as-host case,
 * as C writes them. */
static void test_peer_cases(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_register(m, "T", "echo", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_url_pattern_add(m, "foo://(rest/)(app/):object/:id", "T", "echo"), SB_OK);
    CHECK_STATUS(sb_url_open(m, "foo://rest/app/aaa/bbb", NULL, &out), SB_OK);
    CHECK_STR(str(out, "object"), "aaa");
    CHECK_STR(str(out, "id"), "bbb");
    sb_value_release(out);
    CHECK_STATUS(sb_url_pattern_add(m, "https://<path:url>", "T", "echo"), SB_OK);
    CHECK_STATUS(sb_url_open(m, "https://google.com/search?q=URLNavigator", NULL, &out), SB_OK);
    CHECK_STR(str(out, "url"), "google.com/search");
    sb_value_release(out);
    CHECK_STATUS(sb_url_pattern_add(m, "mgj://", "T", "echo"), SB_EINVAL);
    CHECK(ERROR_MENTIONS("\"mgj://*\""));
    CHECK_STATUS(sb_url_pattern_add(m, "tests://user#/view/:id", "T", "echo"), SB_EINVAL);
    CHECK(ERROR_MENTIONS("fragment"));
    sb_mediator_free(m);
}

int main(void) {
    test_lookup();
    test_lookup_answers();
    test_lookup_threads();
    test_build();
    test_converters();
    test_fallback();
    test_keys_and_user_port();
    test_remove_scheme();
    test_peer_cases();
    return check_report("url_routing");
}
