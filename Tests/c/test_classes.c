/* Target classes registered at run time (sb_class_register): instances made,
 * cached, released and destroyed as a plugin target's are; failures of
 * create; the userdata's destructor; contracts; the catalogue. */
#include "check.h"

#include <stdint.h>
#include <string.h>

/* An instance: a counter. The class's userdata counts what happened. */
struct tally {
    int created, destroyed, freed;
    int fail_create;   /* 1: create fails with a message; 2: with an unknown status */
};

static sb_status counter_create(void *userdata, void **state) {
    struct tally *t = userdata;
    if (t->fail_create == 1) {
        sb_error_set("no counters left");
        return SB_EREJECTED;
    }
    if (t->fail_create == 2) return (sb_status)4242;
    int64_t *count = malloc(sizeof *count);
    if (count == NULL) return SB_ENOMEM;
    *count = 0;
    t->created++;
    *state = count;
    return SB_OK;
}

static sb_status counter_call(void *userdata, void *state, const char *action, const sb_value *args,
                              sb_value **out) {
    (void)userdata;
    int64_t *count = state;
    if (strcmp(action, "bump") == 0) {
        *out = sb_int(++*count);
        return SB_OK;
    }
    if (strcmp(action, "add") == 0) {
        int64_t by = 0;
        sb_value_get_int(sb_dict_get(args, "by"), &by);
        *count += by;
        *out = sb_int(*count);
        return SB_OK;
    }
    sb_error_set("counter has no %s", action);
    return SB_ENOACTION;
}

static void counter_destroy(void *userdata, void *state) {
    struct tally *t = userdata;
    t->destroyed++;
    free(state);
}

static sb_status counter_call_extra(void *userdata, const sb_value *args, sb_value **out) {
    (void)userdata;
    (void)args;
    *out = sb_string("extra");
    return SB_OK;
}

static void tally_free(void *userdata) {
    struct tally *t = userdata;
    t->freed++;
}

static const char *const counter_actions[] = {"bump", "add", NULL};
static const char *const counter_contracts[] = {NULL, "by: int -> int", NULL};

static sb_class_def counter_def(void) {
    sb_class_def def = SB_CLASS_DEF_INIT;
    def.actions = counter_actions;
    def.contracts = counter_contracts;
    def.create = counter_create;
    def.call = counter_call;
    def.destroy = counter_destroy;
    def.origin = "test counter";
    return def;
}

static int64_t bump(sb_mediator *m, unsigned flags) {
    sb_value *out = NULL;
    sb_status s = sb_action_perform(m, "Counter", "bump", NULL, flags, &out);
    int64_t n = s == SB_OK ? check_int(out) : -1;
    sb_value_release(out);
    return n;
}

static void test_instances(void) {
    sb_mediator *m = sb_mediator_new();
    struct tally t = {0, 0, 0, 0};
    sb_class_def def = counter_def();
    CHECK_STATUS(sb_class_register(m, "Counter", &def, &t, tally_free), SB_OK);

    /* Uncached: a fresh instance per call, destroyed after it. */
    CHECK(bump(m, 0) == 1);
    CHECK(bump(m, 0) == 1);
    CHECK(t.created == 2 && t.destroyed == 2);

    /* Cached: kept until released; an uncached call uses it too. */
    CHECK(bump(m, SB_CACHE_TARGET) == 1);
    CHECK(bump(m, SB_CACHE_TARGET) == 2);
    CHECK(bump(m, 0) == 3);
    CHECK(t.created == 3 && t.destroyed == 2);
    sb_value *routes = NULL;
    CHECK_STATUS(sb_routes(m, &routes), SB_OK);
    char *json = sb_json_encode(routes);
    CHECK(json != NULL && strstr(json, "\"origin\":\"test counter\"") != NULL);
    CHECK(json != NULL && strstr(json, "\"cached\":true") != NULL);
    sb_memory_free(json);
    sb_value_release(routes);
    CHECK_STATUS(sb_target_evict(m, "Counter"), SB_OK);
    CHECK(t.destroyed == 3);
    CHECK(bump(m, 0) == 1);
    CHECK(t.created == 4 && t.destroyed == 4);

    /* The contract is checked before an instance is asked. */
    sb_value *params = sb_dict_new();
    sb_dict_set_new(params, "by", sb_string("five"));
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_perform(m, "Counter", "add", params, 0, &out), SB_EPARAMS);
    CHECK(out == NULL && ERROR_MENTIONS("by"));
    sb_dict_set_new(params, "by", sb_int(5));
    CHECK_STATUS(sb_action_perform(m, "Counter", "add", params, 0, &out), SB_OK);
    CHECK(check_int(out) == 5);
    sb_value_release(out);
    sb_value_release(params);

    /* A missing action is the class's business only through notFound. */
    CHECK_STATUS(sb_action_perform(m, "Counter", "nope", NULL, 0, &out), SB_ENOACTION);

    /* Unregistering drops the cached instance and, once, the userdata. */
    CHECK(bump(m, SB_CACHE_TARGET) == 1);
    int destroyed = t.destroyed;
    CHECK_STATUS(sb_target_unregister(m, "Counter"), SB_OK);
    CHECK(t.destroyed == destroyed + 1);
    CHECK(t.freed == 1);
    CHECK(bump(m, 0) == -1);
    sb_mediator_free(m);
    CHECK(t.freed == 1 && t.created == t.destroyed);
}

static void test_create_fails(void) {
    sb_mediator *m = sb_mediator_new();
    struct tally t = {0, 0, 0, 1};
    sb_class_def def = counter_def();
    CHECK_STATUS(sb_class_register(m, "Counter", &def, &t, tally_free), SB_OK);
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_perform(m, "Counter", "bump", NULL, SB_CACHE_TARGET, &out), SB_EREJECTED);
    CHECK(out == NULL && ERROR_MENTIONS("no counters left"));
    t.fail_create = 2;
    CHECK_STATUS(sb_action_perform(m, "Counter", "bump", NULL, 0, &out), SB_EACTION);
    CHECK(ERROR_MENTIONS("Counter: making an instance failed"));
    t.fail_create = 0;
    CHECK(bump(m, 0) == 1);

    /* Replacing the class drops the old one's cached instance and userdata. */
    CHECK(bump(m, SB_CACHE_TARGET) == 1);
    struct tally u = {0, 0, 0, 0};
    CHECK_STATUS(sb_class_register(m, "Counter", &def, &u, tally_free), SB_OK);
    CHECK(t.freed == 1 && t.created == t.destroyed);
    CHECK(bump(m, 0) == 1 && u.created == 1);

    /* A refused registration runs free_userdata at once. */
    sb_class_def bad = def;
    bad.version = 99;
    struct tally v = {0, 0, 0, 0};
    CHECK_STATUS(sb_class_register(m, "Other", &bad, &v, tally_free), SB_EINVAL);
    CHECK(v.freed == 1 && ERROR_MENTIONS("sb_class_def version 99 is newer than this library (1)"));
    bad.version = 0;
    CHECK_STATUS(sb_class_register(m, "Other", &bad, &v, tally_free), SB_EINVAL);
    CHECK(v.freed == 2 && ERROR_MENTIONS("sb_class_def version 0 is not a version"));
    bad.version = -3;
    CHECK_STATUS(sb_class_register(m, "Other", &bad, &v, tally_free), SB_EINVAL);
    CHECK(v.freed == 3 && ERROR_MENTIONS("sb_class_def version -3 is not a version"));
    bad = def;
    bad.contracts = (const char *const[]){"nonsense: nosuchtype", NULL, NULL};
    CHECK_STATUS(sb_class_register(m, "Other", &bad, &v, tally_free), SB_EINVAL);
    CHECK(v.freed == 4);
    sb_mediator_free(m);
    CHECK(u.freed == 1 && u.created == u.destroyed);
}

static void test_unregister_if(void) {
    sb_mediator *m = sb_mediator_new();
    struct tally t = {0, 0, 0, 0}, other = {0, 0, 0, 0};
    sb_class_def def = counter_def();
    CHECK_STATUS(sb_class_register(m, "Counter", &def, &t, tally_free), SB_OK);
    CHECK_STATUS(sb_action_register(m, "Counter", "extra", counter_call_extra, NULL, NULL), SB_OK);
    CHECK(bump(m, SB_CACHE_TARGET) == 1);
    /* Not with another userdata, nor for a name without a class. */
    CHECK_STATUS(sb_class_unregister_if(m, "Counter", &other), SB_ENOTFOUND);
    CHECK_STATUS(sb_class_unregister_if(m, "Nobody", &t), SB_ENOTFOUND);
    CHECK(bump(m, SB_CACHE_TARGET) == 2);
    CHECK_STATUS(sb_class_unregister_if(m, "Counter", &t), SB_OK);
    CHECK(t.freed == 1 && t.created == t.destroyed);
    CHECK(bump(m, 0) == -1);
    /* The registered action stays. */
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_perform(m, "Counter", "extra", NULL, 0, &out), SB_OK);
    sb_value_release(out);
    CHECK_STATUS(sb_class_unregister_if(m, "Counter", &t), SB_ENOTFOUND);
    sb_mediator_free(m);
}

int main(void) {
    test_instances();
    test_create_fails();
    test_unregister_if();
    robustness_row("Run-time target classes (sb_class_register): create failing (with a message, an unknown "
                   "status), a refused definition, replaced, unregistered, cached and released",
                   6, "the call fails with create's status and message; each instance destroyed once; "
                   "the userdata freed once");
    return check_report("classes");
}
