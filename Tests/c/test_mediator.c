/* The mediator: registration, perform, notFound, NoTargetAction, statuses,
 * results, re-entrancy, destructors. */
#include "check.h"

#include <stdint.h>
#include <string.h>

static int freed;
static void count_free(void *p) {
    (void)p;
    freed++;
}

/* Returns userdata (an int) + params.n. */
static sb_status add_n(void *userdata, const sb_value *params, sb_value **out) {
    int64_t n = 0;
    sb_value_get_int(sb_dict_get(params, "n"), &n);
    *out = sb_int(n + (userdata ? *(int *)userdata : 0));
    return SB_OK;
}

/* Returns its params as they arrived (a new reference to them). */
static sb_status echo(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    *out = sb_value_retain((sb_value *)params);
    return SB_OK;
}

static sb_status nothing(void *u, const sb_value *p, sb_value **out) {
    (void)u; (void)p; (void)out;
    return SB_OK;
}

static sb_status reject(void *u, const sb_value *p, sb_value **out) {
    (void)u; (void)p; (void)out;
    sb_error_set("reject: %s", "not today");
    return SB_EREJECTED;
}

static sb_status weird(void *u, const sb_value *p, sb_value **out) {
    (void)u; (void)p; (void)out;
    return (sb_status)-3;
}

/* Performs Inner.value on the mediator in userdata and adds one. */
static sb_status outer(void *userdata, const sb_value *p, sb_value **out) {
    sb_value *inner = NULL;
    (void)p;
    sb_status s = sb_action_perform(userdata, "Inner", "value", NULL, 0, &inner);
    if (s != SB_OK) return s;
    *out = sb_int(check_int(inner) + 1);
    sb_value_release(inner);
    return SB_OK;
}

static void test_register_and_perform(void) {
    sb_mediator *m = sb_mediator_new();
    int hundred = 100;
    sb_value *params = sb_dict_new(), *out = NULL;
    sb_dict_set_new(params, "n", sb_int(5));
    CHECK_STATUS(sb_action_register(m, "Math", "add", add_n, &hundred, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "Math", "add", params, 0, &out), SB_OK);
    CHECK(check_int(out) == 105);
    sb_value_release(out);
    CHECK_STATUS(sb_action_perform(m, "Math", "add", params, 0, NULL), SB_OK); /* out may be NULL */

    /* No params: the action still gets a dict. */
    CHECK_STATUS(sb_action_register(m, "Math", "echo", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "Math", "echo", NULL, 0, &out), SB_OK);
    CHECK(sb_value_type(out) == SB_DICT && sb_value_count(out) == 0);
    sb_value_release(out);

    /* SB_OK without a result gives an SB_NULL value, never NULL. */
    CHECK_STATUS(sb_action_register(m, "Math", "nothing", nothing, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "Math", "nothing", params, 0, &out), SB_OK);
    CHECK(out != NULL && sb_value_type(out) == SB_NULL);
    sb_value_release(out);
    sb_value_release(params);
    sb_mediator_free(m);
}

static void test_replace_and_unregister(void) {
    sb_mediator *m = sb_mediator_new();
    int one = 1, two = 2;
    sb_value *out = NULL;
    freed = 0;
    CHECK_STATUS(sb_action_register(m, "T", "a", add_n, &one, count_free), SB_OK);
    CHECK_STATUS(sb_action_register(m, "T", "a", add_n, &two, count_free), SB_OK);
    CHECK(freed == 1); /* the replaced userdata's destructor ran once */
    CHECK_STATUS(sb_action_perform(m, "T", "a", NULL, 0, &out), SB_OK);
    CHECK(check_int(out) == 2);
    sb_value_release(out);

    CHECK_STATUS(sb_action_register(m, "T", "b", add_n, &one, count_free), SB_OK);
    CHECK_STATUS(sb_action_unregister(m, "T", "b"), SB_OK);
    CHECK(freed == 2);
    CHECK_STATUS(sb_action_unregister(m, "T", "b"), SB_ENOTFOUND);
    /* Where the registered actions come from, for the catalogue. */
    CHECK_STATUS(sb_target_set_origin(m, "T", "config file t.json"), SB_OK);
    char *routes = sb_routes_json(m);
    CHECK(routes != NULL && strstr(routes, "\"origin\":\"config file t.json\"") != NULL);
    sb_memory_free(routes);
    CHECK_STATUS(sb_target_unregister(m, "T"), SB_OK);
    CHECK(freed == 3);
    CHECK_STATUS(sb_action_perform(m, "T", "a", NULL, 0, &out), SB_ENOTARGET);
    CHECK(out == NULL);
    CHECK_STATUS(sb_target_unregister(m, "T"), SB_ENOTFOUND);
    /* Unregistering forgot the origin: registered again, T is "registered". */
    CHECK_STATUS(sb_target_set_origin(m, "T", "config file t.json"), SB_ENOTFOUND);
    CHECK_STATUS(sb_action_register(m, "T", "a", add_n, &one, NULL), SB_OK);
    routes = sb_routes_json(m);
    CHECK(routes != NULL && strstr(routes, "\"origin\":\"registered\"") != NULL && strstr(routes, "t.json") == NULL);
    sb_memory_free(routes);
    CHECK_STATUS(sb_target_unregister(m, "T"), SB_OK);

    /* free_userdata runs when registration fails, too. */
    CHECK_STATUS(sb_action_register(m, "", "a", add_n, &one, count_free), SB_EINVAL);
    CHECK(freed == 4);
    CHECK_STATUS(sb_action_register(m, "T", NULL, add_n, &one, count_free), SB_EINVAL);
    CHECK(freed == 5);
    CHECK_STATUS(sb_action_register(m, "T", "a", NULL, &one, count_free), SB_EINVAL);
    CHECK(freed == 6);
    CHECK_STATUS(sb_action_register(NULL, "T", "a", add_n, &one, count_free), SB_EINVAL);
    CHECK(freed == 7);
    CHECK_STATUS(sb_action_register(m, "T\xff", "a", add_n, &one, count_free), SB_EINVAL);
    CHECK(freed == 8);

    /* Freeing the mediator runs the destructors of what is registered. */
    CHECK_STATUS(sb_action_register(m, "T", "a", add_n, &one, count_free), SB_OK);
    CHECK_STATUS(sb_action_register(m, "U", "a", add_n, &one, count_free), SB_OK);
    sb_mediator_free(m);
    CHECK(freed == 10);
}

static void test_not_found_and_fallbacks(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *params = sb_dict_new(), *out = NULL;
    sb_dict_set_new(params, "k", sb_string("v"));

    /* Nothing answers. */
    CHECK_STATUS(sb_action_perform(m, "Nowhere", "go", params, 0, &out), SB_ENOTARGET);
    CHECK(out == NULL && ERROR_MENTIONS("Nowhere"));
    CHECK_STATUS(sb_action_register(m, "T", "a", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "T", "missing", params, 0, &out), SB_ENOACTION);
    CHECK(ERROR_MENTIONS("missing"));

    /* notFound answers missing actions with the same params. */
    CHECK_STATUS(sb_action_register(m, "T", "notFound", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "T", "missing", params, 0, &out), SB_OK);
    CHECK(sb_value_equal(out, params));
    sb_value_release(out);

    /* NoTargetAction answers missing targets with CTMediator's forms
     * (targetString Target_X, selectorString Action_x:) and the bare names,
     * in that order; no url for a local call. */
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "Nowhere", "go", params, 0, &out), SB_OK);
    CHECK(sb_value_equal(sb_dict_get(out, "originParams"), params));
    CHECK_STR(sb_value_get_string(sb_dict_get(out, "targetString"), NULL), "Target_Nowhere");
    CHECK_STR(sb_value_get_string(sb_dict_get(out, "selectorString"), NULL), "Action_go:");
    CHECK_STR(sb_value_get_string(sb_dict_get(out, "target"), NULL), "Nowhere");
    CHECK_STR(sb_value_get_string(sb_dict_get(out, "action"), NULL), "go");
    CHECK(sb_value_count(out) == 5 && sb_dict_get(out, "url") == NULL);
    {
        static const char *const order[] = {"originParams", "targetString", "selectorString", "target", "action"};
        for (size_t i = 0; i < 5; i++) {
            const char *key = NULL;
            sb_value *ignored = NULL;
            CHECK(sb_dict_at(out, i, &key, &ignored) == SB_OK && key != NULL && strcmp(key, order[i]) == 0);
        }
    }
    sb_value_release(out);
    /* With a module (either module key, or a qualified name), targetString is
     * Module.Target_X as CTMediator's; an empty module names none. */
    {
        static const char *const keys[] = {SB_MODULE_KEY, SB_MODULE_KEY_CTMEDIATOR};
        for (size_t i = 0; i < 2; i++) {
            sb_value *with_module = sb_dict_new();
            sb_dict_set_new(with_module, keys[i], sb_string("Mod"));
            CHECK_STATUS(sb_action_perform(m, "Nowhere", "go", with_module, 0, &out), SB_OK);
            CHECK_STR(sb_value_get_string(sb_dict_get(out, "targetString"), NULL), "Mod.Target_Nowhere");
            CHECK_STR(sb_value_get_string(sb_dict_get(out, "target"), NULL), "Nowhere");
            sb_value_release(out);
            sb_dict_set_new(with_module, keys[i], sb_string(""));
            CHECK_STATUS(sb_action_perform(m, "Nowhere", "go", with_module, 0, &out), SB_OK);
            CHECK_STR(sb_value_get_string(sb_dict_get(out, "targetString"), NULL), "Target_Nowhere");
            sb_value_release(out);
            sb_value_release(with_module);
        }
    }
    CHECK_STATUS(sb_action_perform(m, "Mod.Nowhere", "go", NULL, 0, &out), SB_OK);
    CHECK_STR(sb_value_get_string(sb_dict_get(out, "targetString"), NULL), "Mod.Target_Nowhere");
    sb_value_release(out);
    robustness_row("C fallback params of a call nothing answers (plain, either module key, empty module, "
                   "qualified name, key order)", 6,
                   "targetString Target_X / Module.Target_X, selectorString Action_x:, target, action");
    /* ...with an empty dict when the caller had no params. */
    CHECK_STATUS(sb_action_perform(m, "Nowhere", "go", NULL, 0, &out), SB_OK);
    CHECK(sb_value_type(sb_dict_get(out, "originParams")) == SB_DICT && sb_value_count(sb_dict_get(out, "originParams")) == 0);
    sb_value_release(out);

    /* ...and missing actions of a target without notFound. */
    CHECK_STATUS(sb_action_unregister(m, "T", "notFound"), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "T", "missing", NULL, 0, &out), SB_OK);
    CHECK_STR(sb_value_get_string(sb_dict_get(out, "targetString"), NULL), "Target_T");
    CHECK_STR(sb_value_get_string(sb_dict_get(out, "selectorString"), NULL), "Action_missing:");
    CHECK_STR(sb_value_get_string(sb_dict_get(out, "action"), NULL), "missing");
    sb_value_release(out);

    /* The fallback's own status is what the caller sees. */
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", reject, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "Nowhere", "go", NULL, 0, &out), SB_EREJECTED);
    sb_value_release(params);
    sb_mediator_free(m);
}

/* Copies what the fallback got into a new dict (strings copied, originParams
 * retained), keeping nothing of the params themselves. */
static sb_status copy_fields(void *u, const sb_value *params, sb_value **out) {
    static const char *const keys[] = {"targetString", "selectorString", "target", "action"};
    (void)u;
    *out = sb_dict_new();
    for (size_t i = 0; i < 4; i++) {
        const char *s = sb_value_get_string(sb_dict_get(params, keys[i]), NULL);
        if (s != NULL) sb_dict_set_new(*out, keys[i], sb_string(s));
    }
    sb_dict_set(*out, "originParams", sb_dict_get(params, "originParams"));
    sb_dict_set_new(*out, "count", sb_int((int64_t)sb_value_count(params)));
    return SB_OK;
}

/* Keeps the params it got (one reference, in userdata) and answers nothing. */
static sb_status keep_params(void *u, const sb_value *params, sb_value **out) {
    sb_value **kept = u;
    (void)out;
    sb_value_release(*kept);
    *kept = sb_value_retain((sb_value *)params);
    return SB_OK;
}

static int fields_are(sb_value *got, const char *target_string, const char *selector, const char *target,
                      const char *action) {
    const char *a = sb_value_get_string(sb_dict_get(got, "targetString"), NULL);
    const char *b = sb_value_get_string(sb_dict_get(got, "selectorString"), NULL);
    const char *c = sb_value_get_string(sb_dict_get(got, "target"), NULL);
    const char *d = sb_value_get_string(sb_dict_get(got, "action"), NULL);
    return a && b && c && d && strcmp(a, target_string) == 0 && strcmp(b, selector) == 0 && strcmp(c, target) == 0 &&
           strcmp(d, action) == 0;
}

/* The C face keeps the params of a finished fallback call that nobody kept
 * and reuses them for the next: every call must still see its own fields,
 * a fallback that keeps its params sees them as they were, and the
 * caller's params are never held (nor counted deeper) after the call. */
static void test_fallback_params_reused(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL, *kept = NULL;
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", copy_fields, NULL, NULL), SB_OK);

    /* Calls that differ in each field, one after the other. */
    static const struct { const char *target, *action, *target_string, *selector; } calls[] = {
        {"A", "go", "Target_A", "Action_go:"},           {"A", "go", "Target_A", "Action_go:"},
        {"B", "go", "Target_B", "Action_go:"},           {"B", "stop", "Target_B", "Action_stop:"},
        {"Mod.B", "stop", "Mod.Target_B", "Action_stop:"}, {"Longer.Name", "x", "Longer.Target_Name", "Action_x:"},
        {"A", "go", "Target_A", "Action_go:"},
    };
    int all = 1;
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        sb_value *params = i % 2 ? sb_dict_new() : NULL;
        if (params) sb_dict_set_new(params, "i", sb_int((int64_t)i));
        all &= sb_action_perform(m, calls[i].target, calls[i].action, params, 0, &out) == SB_OK;
        all &= fields_are(out, calls[i].target_string, calls[i].selector, calls[i].target, calls[i].action);
        int64_t n = 0, count = 0;
        sb_value *origin = sb_dict_get(out, "originParams");
        all &= sb_value_get_int(sb_dict_get(out, "count"), &count) == SB_OK && count == 5;
        /* Each call's own params, or an empty dict. */
        all &= params ? origin == params && sb_value_get_int(sb_dict_get(origin, "i"), &n) == SB_OK && n == (int64_t)i
                      : sb_value_type(origin) == SB_DICT && sb_value_count(origin) == 0;
        sb_value_release(out);
        sb_value_release(params);
    }
    CHECK(all);

    /* The caller's params go when the caller releases them: the kept dict
     * does not hold them (a pointer's destroy runs then). */
    freed = 0;
    sb_value *params = sb_dict_new();
    sb_dict_set_new(params, "p", sb_pointer(&freed, count_free));
    CHECK_STATUS(sb_action_perform(m, "A", "go", params, 0, &out), SB_OK);
    sb_value_release(out); /* copy_fields retained originParams in out */
    /* ...and they can be nested as deep as if no fallback had held them:
     * params at depth 1, then SB_MAX_DEPTH - 1 dicts below. */
    {
        sb_value *level = params;
        sb_status s = SB_OK;
        for (int depth = 2; depth <= SB_MAX_DEPTH && s == SB_OK; depth++) {
            sb_value *next = sb_dict_new();
            s = sb_dict_set_new(level, "c", next);
            level = next;
        }
        CHECK_STATUS(s, SB_OK);
    }
    CHECK(freed == 0);
    sb_value_release(params);
    CHECK(freed == 1);

    /* An empty originParams a fallback kept (no params given) stays empty
     * whatever later calls do. */
    CHECK_STATUS(sb_action_perform(m, "A", "go", NULL, 0, &out), SB_OK);
    sb_value *empty = sb_value_retain(sb_dict_get(out, "originParams"));
    sb_value_release(out);
    CHECK_STATUS(sb_action_perform(m, "B", "go", NULL, 0, &out), SB_OK);
    CHECK(sb_value_count(sb_dict_get(out, "originParams")) == 0 && sb_value_type(empty) == SB_DICT &&
          sb_value_count(empty) == 0);
    sb_value_release(out);
    sb_value_release(empty);

    /* A fallback that keeps its params sees them as they were after later
     * calls, which get params of their own. */
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", keep_params, &kept, NULL), SB_OK);
    sb_value *first = sb_dict_new();
    sb_dict_set_new(first, "n", sb_int(1));
    CHECK_STATUS(sb_action_perform(m, "First", "one", first, 0, &out), SB_OK);
    sb_value *first_kept = sb_value_retain(kept);
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", copy_fields, NULL, NULL), SB_OK);
    for (int i = 0; i < 3; i++) {
        CHECK_STATUS(sb_action_perform(m, "Second", "two", NULL, 0, &out), SB_OK);
        CHECK(fields_are(out, "Target_Second", "Action_two:", "Second", "two"));
        sb_value_release(out);
    }
    CHECK(fields_are(first_kept, "Target_First", "Action_one:", "First", "one"));
    CHECK(sb_dict_get(first_kept, "originParams") == first && sb_value_count(first_kept) == 5);
    sb_value_release(first_kept);
    sb_value_release(kept);
    sb_value_release(first);
    sb_mediator_free(m);
}

/* A fallback that breaks the rule that args are read-only (a const cast):
 * what it does to its params must not reach a later call, nor outlive it. */
static int hostile_mode;
static sb_value *hostile_container;
static sb_status mutate_params(void *u, const sb_value *params, sb_value **out) {
    sb_value *p = (sb_value *)params;
    (void)u;
    *out = sb_dict_new();
    for (size_t i = 0; i < sb_value_count(params); i++) {
        const char *k = NULL;
        sb_value *v = NULL;
        sb_dict_at(params, i, &k, &v);
        sb_dict_set(*out, k, v);
    }
    if (hostile_mode == 1) sb_dict_set_new(p, "extra", sb_string("EXTRA"));
    if (hostile_mode == 2) sb_dict_set_new(p, "target", sb_pointer(&freed, count_free));
    if (hostile_mode == 3) sb_dict_set(p, "action", hostile_container);
    if (hostile_mode == 4) {
        /* Grows the 5-slot dict past its index threshold (to 10 slots, then
         * 20): every key stays findable. */
        char key[16];
        for (int i = 0; i < 16; i++) {
            snprintf(key, sizeof key, "k%d", i);
            sb_dict_set_new(p, key, sb_int(i));
        }
        int found = 0;
        for (int i = 0; i < 16; i++) {
            int64_t n = -1;
            snprintf(key, sizeof key, "k%d", i);
            found += sb_value_get_int(sb_dict_get(params, key), &n) == SB_OK && n == i;
        }
        sb_dict_set_new(*out, "found", sb_int(found));
    }
    return SB_OK;
}

static void test_fallback_params_mutated(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", mutate_params, NULL, NULL), SB_OK);

    /* A key added to a plain call's params (5 + 1 entries, a URL call's
     * count): the next URL call has its url under "url", nothing else. */
    hostile_mode = 1;
    CHECK_STATUS(sb_action_perform(m, "Ghost", "boo", NULL, 0, &out), SB_OK);
    sb_value_release(out);
    hostile_mode = 0;
    CHECK_STATUS(sb_url_open(m, "app://Ghost/boo?k=v", NULL, &out), SB_OK);
    CHECK_STR(sb_value_get_string(sb_dict_get(out, "url"), NULL), "app://Ghost/boo?k=v");
    CHECK(sb_dict_get(out, "extra") == NULL && sb_value_count(out) == 6);
    sb_value_release(out);

    /* A pointer put in the params is destroyed when the call ends. */
    freed = 0;
    hostile_mode = 2;
    CHECK_STATUS(sb_action_perform(m, "Ghost", "boo", NULL, 0, &out), SB_OK);
    sb_value_release(out);
    hostile_mode = 0;
    CHECK(freed == 1);

    /* A container put in the params is the caller's alone after the call:
     * SB_MAX_DEPTH - 1 levels still fit below it. */
    hostile_container = sb_dict_new();
    hostile_mode = 3;
    CHECK_STATUS(sb_action_perform(m, "Ghost", "boo", NULL, 0, &out), SB_OK);
    sb_value_release(out);
    hostile_mode = 0;
    {
        sb_value *level = hostile_container;
        sb_status s = SB_OK;
        for (int depth = 2; depth <= SB_MAX_DEPTH && s == SB_OK; depth++) {
            sb_value *next = sb_dict_new();
            s = sb_dict_set_new(level, "c", next);
            level = next;
        }
        CHECK_STATUS(s, SB_OK);
    }
    sb_value_release(hostile_container);

    /* Keys enough to grow the params past their index threshold: all are
     * found (the index of a 5-slot dict grown to 10 once had a mask that
     * reached 8 of its 20 places, and the 9th key's insert never ended). */
    hostile_mode = 4;
    CHECK_STATUS(sb_action_perform(m, "Ghost", "boo", NULL, 0, &out), SB_OK);
    {
        int64_t found = -1;
        CHECK_STATUS(sb_value_get_int(sb_dict_get(out, "found"), &found), SB_OK);
        CHECK(found == 16);
    }
    sb_value_release(out);
    hostile_mode = 0;

    /* Later calls see their own fields only. */
    CHECK_STATUS(sb_action_perform(m, "Mod.Ghost", "b", NULL, 0, &out), SB_OK);
    CHECK(fields_are(out, "Mod.Target_Ghost", "Action_b:", "Mod.Ghost", "b") && sb_value_count(out) == 5);
    sb_value_release(out);
    robustness_row("C NoTargetAction that changes its params (a key added before a URL miss, a pointer, a "
                   "container put in, 16 keys added)", 4, "the next call sees its own fields only; what was put "
                   "in is released with the call; every added key is found");
    sb_mediator_free(m);
}

/* A fallback that misses again from inside itself, down to the call depth
 * limit, alternating plain, qualified and URL calls: each level, after the
 * inner calls returned, still sees its own fields (an inner call never takes
 * the params an outer one is using). */
static int nested_wrong, nested_deepest, nested_rejected;
static sb_status miss_again(void *u, const sb_value *params, sb_value **out) {
    sb_mediator *m = u;
    const char *action = sb_value_get_string(sb_dict_get(params, "action"), NULL);
    int depth = action ? atoi(action + 1) : 0;
    char target[32], act[32], next_target[32], next_action[32], url[96];
    snprintf(target, sizeof target, depth % 2 ? "M.T%d" : "T%d", depth);
    snprintf(act, sizeof act, "a%d", depth);
    snprintf(next_target, sizeof next_target, (depth + 1) % 2 ? "M.T%d" : "T%d", depth + 1);
    snprintf(next_action, sizeof next_action, "a%d", depth + 1);
    if (depth > nested_deepest) nested_deepest = depth;
    sb_value *o = NULL;
    sb_status s;
    if (depth % 4 == 0) {
        snprintf(url, sizeof url, "app://%s/%s", next_target, next_action);
        s = sb_url_open(m, url, NULL, &o);
    } else {
        s = sb_action_perform(m, next_target, next_action, depth % 3 ? params : NULL, 0, &o);
    }
    if (s == SB_EREJECTED) nested_rejected++;
    sb_value_release(o);
    const char *t = sb_value_get_string(sb_dict_get(params, "target"), NULL);
    int has_url = sb_dict_get(params, "url") != NULL;
    if (!t || !action || strcmp(t, target) != 0 || strcmp(action, act) != 0 || (depth > 1 && has_url != (depth % 4 == 1)))
        nested_wrong++;
    *out = sb_int(depth);
    return SB_OK;
}

static void test_fallback_params_nested(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", miss_again, m, NULL), SB_OK);
    for (int round = 0; round < 2; round++) {
        nested_wrong = nested_deepest = nested_rejected = 0;
        CHECK_STATUS(sb_action_perform(m, "M.T1", "a1", NULL, 0, &out), SB_OK);
        sb_value_release(out);
        CHECK(nested_wrong == 0 && nested_rejected == 1 && nested_deepest > 100);
    }
    sb_mediator_free(m);
}

static void test_statuses(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL, *not_dict = sb_int(1);
    CHECK_STATUS(sb_action_register(m, "T", "reject", reject, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "T", "weird", weird, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "T", "echo", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "T", "reject", NULL, 0, &out), SB_EREJECTED);
    CHECK_STR(sb_error_message(), "reject: not today");
    CHECK_STATUS(sb_action_perform(m, "T", "weird", NULL, 0, &out), SB_EACTION);
    CHECK(out == NULL);

    /* Success leaves the last message alone. */
    CHECK_STATUS(sb_action_perform(m, "T", "echo", NULL, 0, &out), SB_OK);
    CHECK(ERROR_MENTIONS("weird"));
    sb_value_release(out);

    CHECK_STATUS(sb_action_perform(m, "T", "echo", not_dict, 0, &out), SB_ETYPE);
    CHECK(ERROR_MENTIONS("dict"));
    CHECK_STATUS(sb_action_perform(m, "T", "echo", NULL, 0x80u, &out), SB_EINVAL);
    CHECK_STATUS(sb_action_perform(m, "", "echo", NULL, 0, &out), SB_EINVAL);
    CHECK_STATUS(sb_action_perform(m, "T", "", NULL, 0, &out), SB_EINVAL);
    CHECK_STATUS(sb_action_perform(m, NULL, "echo", NULL, 0, &out), SB_EINVAL);
    CHECK_STATUS(sb_action_perform(NULL, "T", "echo", NULL, 0, &out), SB_EINVAL);
    CHECK(out == NULL);
    /* Nothing cached under those names: nothing released, and it says so. */
    CHECK_STATUS(sb_target_evict(m, "T"), SB_ENOTFOUND);
    CHECK(ERROR_MENTIONS("no cached instance") && ERROR_MENTIONS("\"T\""));
    CHECK_STATUS(sb_target_evict(m, "Never"), SB_ENOTFOUND);
    CHECK_STATUS(sb_target_evict(m, "Target_T"), SB_ENOTFOUND);
    robustness_row("sb_target_evict of a name with no cached instance (registered without instances, "
                   "unknown, CTMediator's class name)", 3, "SB_ENOTFOUND, nothing released");
    CHECK_STATUS(sb_target_evict(m, ""), SB_EINVAL);
    CHECK_STATUS(sb_target_evict(NULL, "T"), SB_EINVAL);
    sb_value_release(not_dict);
    sb_mediator_free(m);
}

/* Answers the string in its userdata: which registration answered. */
static sb_status name_of(void *u, const sb_value *p, sb_value **out) {
    (void)p;
    *out = sb_string(u);
    return SB_OK;
}

/* SB_MODULE_KEY and its alias, CTMediator's key, name where a target is
 * looked up: "Mod" + "T" finds what is registered as "Mod.T". */
static void test_module_key(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    static const char *const keys[] = {SB_MODULE_KEY, SB_MODULE_KEY_CTMEDIATOR};
    CHECK(strcmp(SB_MODULE_KEY_CTMEDIATOR, "kCTMediatorParamsKeySwiftTargetModuleName") == 0);
    CHECK_STATUS(sb_action_register(m, "Mod.T", "who", name_of, "Mod.T", NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "Other.T", "who", name_of, "Other.T", NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "T", "who", name_of, "T", NULL), SB_OK);
    for (size_t i = 0; i < 2; i++) {
        sb_value *params = sb_dict_new();
        sb_dict_set_new(params, keys[i], sb_string("Mod"));
        CHECK_STATUS(sb_action_perform(m, "T", "who", params, 0, &out), SB_OK);
        CHECK_STR(sb_value_get_string(out, NULL), "Mod.T");
        sb_value_release(out);
        /* An empty module names none (it was ".T" before). */
        sb_dict_set_new(params, keys[i], sb_string(""));
        CHECK_STATUS(sb_action_perform(m, "T", "who", params, 0, &out), SB_OK);
        CHECK_STR(sb_value_get_string(out, NULL), "T");
        sb_value_release(out);
        sb_value_release(params);
    }
    /* Both: SB_MODULE_KEY wins, unless it is empty. */
    sb_value *both = sb_dict_new();
    sb_dict_set_new(both, SB_MODULE_KEY_CTMEDIATOR, sb_string("Other"));
    sb_dict_set_new(both, SB_MODULE_KEY, sb_string("Mod"));
    CHECK_STATUS(sb_action_perform(m, "T", "who", both, 0, &out), SB_OK);
    CHECK_STR(sb_value_get_string(out, NULL), "Mod.T");
    sb_value_release(out);
    sb_dict_set_new(both, SB_MODULE_KEY, sb_string(""));
    CHECK_STATUS(sb_action_perform(m, "T", "who", both, 0, &out), SB_OK);
    CHECK_STR(sb_value_get_string(out, NULL), "Other.T");
    sb_value_release(out);
    /* The intercepted path reads it the same way. */
    sb_call_options opts = {SB_CALL_OPTIONS_VERSION, 0, NULL, 0, NULL, 0, NULL};
    CHECK_STATUS(sb_action_perform_opts(m, "T", "who", both, &opts, &out), SB_OK);
    CHECK_STR(sb_value_get_string(out, NULL), "Other.T");
    sb_value_release(out);
    sb_value_release(both);
    robustness_row("C module key spellings (SB_MODULE_KEY, SB_MODULE_KEY_CTMEDIATOR, both, either empty, with options)",
                   7, "the first non-empty one names the module; an empty one names none");
    sb_mediator_free(m);
}

static void test_reentrancy_and_shared(void) {
    sb_mediator *m = sb_mediator_new();
    int forty_one = 41;
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_register(m, "Inner", "value", add_n, &forty_one, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "Outer", "value", outer, m, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "Outer", "value", NULL, 0, &out), SB_OK);
    CHECK(check_int(out) == 42);
    sb_value_release(out);
    sb_mediator_free(m);

    CHECK(sb_mediator_shared() != NULL && sb_mediator_shared() == sb_mediator_shared());
    CHECK_STATUS(sb_action_register(sb_mediator_shared(), "SharedT", "a", add_n, &forty_one, NULL), SB_OK);
    sb_mediator_free(sb_mediator_shared()); /* a no-op */
    CHECK_STATUS(sb_action_perform(sb_mediator_shared(), "SharedT", "a", NULL, 0, &out), SB_OK);
    CHECK(check_int(out) == 41);
    sb_value_release(out);
    CHECK_STATUS(sb_target_unregister(sb_mediator_shared(), "SharedT"), SB_OK);
    sb_mediator_free(NULL);

    /* Mediators are independent. */
    sb_mediator *a = sb_mediator_new(), *b = sb_mediator_new();
    CHECK_STATUS(sb_action_register(a, "OnlyA", "x", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(b, "OnlyA", "x", NULL, 0, &out), SB_ENOTARGET);
    sb_mediator_free(a);
    sb_mediator_free(b);
}

/* A discoverer that registers "Lazy" (and only it) on demand, counting calls
 * (it is asked for "NoTargetAction" too, when a call falls back: not counted). */
static int discoveries;
static sb_status discover_lazy(void *userdata, sb_mediator *dm, const char *target) {
    if (strcmp(target, "NoTargetAction") != 0) discoveries++;
    if (strcmp(target, "Lazy") == 0) return sb_action_register(dm, "Lazy", "value", add_n, userdata, NULL);
    if (strcmp(target, "Broken") == 0) {
        sb_error_set("discover_lazy: cannot load %s", target);
        return SB_EREJECTED;
    }
    return SB_ENOTARGET;
}

/* Registers "Lazy" with its own userdata (another answer): a second
 * discoverer that finds the same name. */
static int second_asked;
static sb_status discover_again(void *userdata, sb_mediator *dm, const char *target) {
    second_asked++;
    if (strcmp(target, "Lazy") == 0) return sb_action_register(dm, "Lazy", "value", add_n, userdata, NULL);
    return SB_ENOTARGET;
}

/* The first discoverer that registers the name ends the search: a later one
 * is not asked, so it neither repeats the work nor replaces what the first
 * registered. */
static void test_first_discoverer_wins(void) {
    sb_mediator *m = sb_mediator_new();
    static int five = 5, six = 6;
    sb_value *out = NULL;
    CHECK_STATUS(sb_discoverer_add(m, discover_lazy, &five, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_discoverer_add(m, discover_again, &six, NULL, NULL), SB_OK);
    second_asked = 0;
    CHECK_STATUS(sb_action_perform(m, "Lazy", "value", NULL, 0, &out), SB_OK);
    CHECK(check_int(out) == 5 && second_asked == 0);
    sb_value_release(out);
    /* A name the first does not know still reaches the second. */
    CHECK_STATUS(sb_action_perform(m, "Other", "value", NULL, 0, &out), SB_ENOTARGET);
    CHECK(second_asked >= 1);
    sb_mediator_free(m);
}

static void test_discoverers(void) {
    sb_mediator *m = sb_mediator_new();
    static int five = 5;
    uint64_t id = 0;
    sb_value *out = NULL;
    freed = 0;
    discoveries = 0;
    CHECK_STATUS(sb_discoverer_add(m, discover_lazy, &five, count_free, &id), SB_OK);
    CHECK(id != 0);

    CHECK_STATUS(sb_action_perform(m, "Lazy", "value", NULL, 0, &out), SB_OK);
    CHECK(check_int(out) == 5 && discoveries == 1);
    sb_value_release(out);
    CHECK_STATUS(sb_action_perform(m, "Lazy", "value", NULL, 0, &out), SB_OK); /* found now: not asked again */
    CHECK(discoveries == 1);
    sb_value_release(out);

    CHECK_STATUS(sb_action_perform(m, "Nothing", "value", NULL, 0, &out), SB_ENOTARGET);
    CHECK(discoveries == 2);
    CHECK_STATUS(sb_action_perform(m, "Broken", "value", NULL, 0, &out), SB_EREJECTED);
    CHECK(ERROR_MENTIONS("cannot load Broken"));

    /* Removing: what it registered stays; its destructor runs. */
    CHECK_STATUS(sb_discoverer_remove(m, id), SB_OK);
    CHECK(freed == 1);
    CHECK_STATUS(sb_discoverer_remove(m, id), SB_ENOTFOUND);
    CHECK_STATUS(sb_discoverer_remove(m, 1), SB_ENOTFOUND); /* not a discoverer id of ours */
    CHECK_STATUS(sb_action_perform(m, "Lazy", "value", NULL, 0, &out), SB_OK);
    sb_value_release(out);
    CHECK_STATUS(sb_action_perform(m, "Nothing", "value", NULL, 0, &out), SB_ENOTARGET);
    CHECK(discoveries == 3); /* Lazy, Nothing, Broken; nothing asked since removal */

    CHECK_STATUS(sb_discoverer_add(m, NULL, &five, count_free, &id), SB_EINVAL);
    CHECK(freed == 2);
    CHECK_STATUS(sb_discoverer_add(NULL, discover_lazy, &five, count_free, NULL), SB_EINVAL);
    CHECK(freed == 3);
    CHECK_STATUS(sb_discoverer_remove(NULL, id), SB_EINVAL);

    /* The mediator frees what is still added. */
    CHECK_STATUS(sb_discoverer_add(m, discover_lazy, &five, count_free, NULL), SB_OK);
    sb_mediator_free(m);
    CHECK(freed == 4);
}

static void watch(void *userdata, const sb_call_event *event) {
    (void)event;
    (*(int *)userdata)++;
}

/* A name that is not UTF-8 names nothing, with hooks or without: it is never
 * repaired into another name (here "A" + U+FFFD, registered). */
static void test_names_not_utf8(void) {
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(m, "A\xEF\xBF\xBD", "x", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", echo, NULL, NULL), SB_OK);
    int seen = 0;
    uint64_t id = 0;
    for (int hooked = 0; hooked <= 1; hooked++) {
        if (hooked) CHECK_STATUS(sb_observer_add(m, watch, &seen, NULL, &id), SB_OK);
        sb_value *out = NULL;
        CHECK_STATUS(sb_action_perform(m, "A\xFF", "x", NULL, 0, &out), SB_EINVAL);
        CHECK(out == NULL && ERROR_MENTIONS("not valid UTF-8"));
        CHECK_STATUS(sb_action_perform(m, "A\xEF\xBF\xBD", "x\xC3", NULL, 0, &out), SB_EINVAL);
        CHECK_STATUS(sb_action_perform(m, "A\xEF\xBF\xBD", "x", NULL, 0, &out), SB_OK);
        sb_value_release(out);
    }
    CHECK(seen == 2); /* the good call's start and end */
    sb_mediator_free(m);
}

/* A miss NoTargetAction answers takes the fast path once the miss is known
 * (the second call on): what could change the answer between calls still
 * does. */
static sb_mediator *fast_m;
static int fast_asked, fast_calls, fast_unregister;
static sb_status fast_discover(void *u, sb_mediator *m, const char *target) {
    (void)u; (void)m; (void)target;
    fast_asked++;
    return SB_ENOTARGET;
}
/* Unregisters itself, then nests under originParams as deep as it may go. */
static sb_status fast_hostile(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    fast_calls++;
    if (fast_unregister) sb_action_unregister(fast_m, "NoTargetAction", "response");
    sb_value *level = sb_dict_get(params, "originParams");
    int depth = 2; /* originParams inside the fallback's params */
    for (;;) {
        sb_value *next = sb_dict_new();
        if (sb_dict_set_new(level, "c", next) != SB_OK) break;
        level = next;
        depth++;
    }
    *out = sb_int(depth);
    return SB_OK;
}

static void test_miss_fast_path(void) {
    sb_mediator *m = fast_m = sb_mediator_new();
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", echo, NULL, NULL), SB_OK);
    for (int i = 0; i < 3; i++) {
        CHECK_STATUS(sb_action_perform(m, "Ghost", "boo", NULL, 0, &out), SB_OK);
        CHECK(fields_are(out, "Target_Ghost", "Action_boo:", "Ghost", "boo") && sb_value_count(out) == 5);
        sb_value_release(out);
    }
    /* A discoverer added after the misses were known is asked on each miss. */
    uint64_t id = 0;
    CHECK_STATUS(sb_discoverer_add(m, fast_discover, NULL, NULL, &id), SB_OK);
    for (int i = 0; i < 3; i++) {
        CHECK_STATUS(sb_action_perform(m, "Ghost", "boo", NULL, 0, &out), SB_OK);
        sb_value_release(out);
    }
    CHECK(fast_asked == 3);
    CHECK_STATUS(sb_discoverer_remove(m, id), SB_OK);
    /* A fallback replaced between calls answers the next call. */
    int ten = 10;
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", add_n, &ten, NULL), SB_OK);
    for (int i = 0; i < 2; i++) {
        CHECK_STATUS(sb_action_perform(m, "Ghost", "boo", NULL, 0, &out), SB_OK);
        CHECK(check_int(out) == 10);
        sb_value_release(out);
    }
    /* One that unregisters itself while it runs finishes its call (valgrind
     * sees no use after free), sees originParams at depth 2, and the next
     * miss fails as nothing answers it. */
    sb_value *params = sb_dict_new();
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", fast_hostile, NULL, NULL), SB_OK);
    for (int i = 0; i < 3; i++) {
        fast_unregister = i == 2; /* the last, once the miss is known */
        CHECK_STATUS(sb_action_perform(m, "Ghost", "boo", i == 1 ? params : NULL, 0, &out), SB_OK);
        CHECK(check_int(out) == SB_MAX_DEPTH);
        sb_value_release(out);
    }
    CHECK_STATUS(sb_action_perform(m, "Ghost", "boo", params, 0, &out), SB_ENOTARGET);
    CHECK(out == NULL && ERROR_MENTIONS("no target named \"Ghost\""));
    CHECK(fast_calls == 3);
    sb_value_release(params);
    /* A name that is not UTF-8 fails every time, known miss or not. */
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", echo, NULL, NULL), SB_OK);
    for (int i = 0; i < 2; i++) {
        CHECK_STATUS(sb_action_perform(m, "Gh\xC3", "boo", NULL, 0, &out), SB_EINVAL);
        CHECK_STATUS(sb_action_perform(m, "Ghost", "b\xFF\xFE", NULL, 0, &out), SB_EINVAL);
    }
    robustness_row("C misses NoTargetAction answers, repeated (the fast path): a discoverer added later, the "
                   "fallback replaced, unregistering itself mid-call, nesting under originParams, names not UTF-8",
                   5, "each call answers as the first did: the discoverer asked every time, the new fallback "
                   "answers, originParams at depth 2, the same errors");
    sb_mediator_free(m);
}

/* A miss's plan is made while a discoverer asked for a fallback's target
 * (NoTargetAction, a degrade rule's) runs, unpinned: what the plan found
 * before (the rule's target, the target whose cached instance a miss drops)
 * may be unregistered meanwhile, by that discoverer itself. The call then
 * answers from the registry as it is, never from what was freed (it ran the
 * freed action: SIGSEGV); and a fallback's target that a discoverer may
 * find later is asked for on every call that falls back, as a missing
 * target is (a kept plan asked no more). */
#define PLAN_LIVE 0x4c495645u
#define PLAN_DEAD 0xdeadbeefu
static unsigned plan_magic = PLAN_LIVE;
static int plan_stale, plan_asked, plan_ready;
static const char *plan_drops; /* unregistered when NoTargetAction is asked for */
static void plan_poison(void *u) { *(unsigned *)u = PLAN_DEAD; }
static sb_status plan_answer(void *u, const sb_value *p, sb_value **out) {
    (void)p;
    if (u != NULL && *(unsigned *)u != PLAN_LIVE) plan_stale++;
    *out = sb_int(42);
    return SB_OK;
}
static sb_status plan_discover(void *u, sb_mediator *m, const char *target) {
    (void)u;
    if (strcmp(target, "NoTargetAction") != 0 && strcmp(target, "Late") != 0) return SB_ENOTARGET;
    plan_asked++;
    if (plan_drops != NULL) {
        sb_target_unregister(m, plan_drops);
        plan_drops = NULL;
    }
    return plan_ready ? sb_action_register(m, target, "response", plan_answer, NULL, NULL) : SB_ENOTARGET;
}

static void test_plans_across_discovery(void) {
    sb_value *out = NULL;
    /* The rule's target, found before NoTargetAction was looked for. */
    sb_mediator *m = sb_mediator_new();
    plan_ready = 0;
    CHECK_STATUS(sb_action_register(m, "R", "response", plan_answer, &plan_magic, plan_poison), SB_OK);
    CHECK_STATUS(sb_rules_set_json(m, "[{\"target\":\"T\",\"action\":\"*\",\"degrade\":\"R\"}]"), SB_OK);
    CHECK_STATUS(sb_discoverer_add(m, plan_discover, NULL, NULL, NULL), SB_OK);
    plan_drops = "R";
    CHECK_STATUS(sb_action_perform(m, "T", "y", NULL, 0, &out), SB_ENOTARGET);
    CHECK(plan_magic == PLAN_DEAD && plan_stale == 0 && out == NULL);
    sb_mediator_free(m);

    /* The target whose cached instance the miss drops. */
    m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(m, "T", "x", plan_answer, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_discoverer_add(m, plan_discover, NULL, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "T", "y", NULL, 0, &out), SB_ENOACTION);
    plan_drops = "T";
    CHECK_STATUS(sb_action_perform(m, "T", "y", NULL, 0, &out), SB_ENOTARGET); /* T is gone */
    CHECK(plan_drops == NULL);

    /* A fallback's target is asked for on every miss that falls back, and
     * answers once the discoverer finds it (here NoTargetAction, then a
     * degrade rule's target). */
    CHECK_STATUS(sb_action_register(m, "T", "x", plan_answer, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "U", "x", plan_answer, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "T", "y", NULL, SB_NO_FALLBACK, &out), SB_ENOACTION); /* T's class looked for */
    plan_asked = 0;
    for (int i = 1; i <= 3; i++) {
        CHECK_STATUS(sb_action_perform(m, "T", "y", NULL, 0, &out), SB_ENOACTION);
        CHECK(plan_asked == i);
    }
    plan_ready = 1;
    CHECK_STATUS(sb_action_perform(m, "T", "y", NULL, 0, &out), SB_OK);
    CHECK(check_int(out) == 42);
    sb_value_release(out);
    plan_ready = 0;
    CHECK_STATUS(sb_rules_set_json(m, "[{\"target\":\"U\",\"action\":\"*\",\"degrade\":\"Late\"}]"), SB_OK);
    CHECK_STATUS(sb_target_unregister(m, "NoTargetAction"), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "U", "y", NULL, SB_NO_FALLBACK, &out), SB_ENOACTION);
    plan_asked = 0;
    for (int i = 1; i <= 3; i++) {
        CHECK_STATUS(sb_action_perform(m, "U", "y", NULL, 0, &out), SB_ENOACTION);
        CHECK(plan_asked == 2 * i); /* Late, then NoTargetAction */
    }
    plan_ready = 1;
    CHECK_STATUS(sb_action_perform(m, "U", "y", NULL, 0, &out), SB_OK);
    CHECK(check_int(out) == 42);
    sb_value_release(out);
    robustness_row("C misses whose fallback's target a discoverer is asked for: it unregisters the degrade rule's "
                   "target or the missed target meanwhile, or finds the fallback's target only later",
                   4, "the call answers from the registry as it is then (no freed action runs); the discoverer is "
                   "asked on every such miss, and its target answers once found");
    sb_mediator_free(m);
}

int main(void) {
    test_register_and_perform();
    test_replace_and_unregister();
    test_not_found_and_fallbacks();
    test_fallback_params_reused();
    test_fallback_params_mutated();
    test_fallback_params_nested();
    test_statuses();
    test_module_key();
    test_reentrancy_and_shared();
    test_discoverers();
    test_first_discoverer_wins();
    test_names_not_utf8();
    test_miss_fast_path();
    test_plans_across_discovery();
    return check_report("mediator");
}
