/* Action contracts from C: registering with a contract, EPARAMS for a
 * missing key or a wrong type, defaults filled in, URL query strings
 * converted, local actions refused from URLs, contracts that are refused
 * (and their userdata freed), the catalogue, and NULL arguments. */
#include "check.h"

#include <stdint.h>
#include <string.h>

static int freed;
static void count_free(void *p) {
    (void)p;
    freed++;
}

static int reached;

/* Returns its params as they arrived. */
static sb_status echo(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    reached++;
    *out = sb_value_retain((sb_value *)params);
    return SB_OK;
}

static const char *show_contract =
    "message: string   -- the text to show, with commas\n"
    "count: int = 3\n"
    "ratio: double?, flag: bool = false\n"
    "-> dict";

static sb_mediator *contracted(void) {
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_action_register_contract(m, "A", "show", show_contract, echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register_contract(m, "A", "secret", "local", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register_contract(m, "A", "plain", NULL, echo, NULL, NULL), SB_OK);
    return m;
}

/* Performs A.<action> with `params` (a JSON object); the status. *out gets
 * the result or NULL. */
static sb_status perform_json(sb_mediator *m, const char *action, const char *json, sb_value **out) {
    sb_value *params = NULL;
    *out = NULL;
    if (sb_json_decode(json, &params) != SB_OK) return SB_EINVAL;
    sb_status s = sb_action_perform(m, "A", action, params, 0, out);
    sb_value_release(params);
    return s;
}

static void test_violations(void) {
    sb_mediator *m = contracted();
    sb_value *out = NULL;
    reached = 0;
    CHECK_STATUS(perform_json(m, "show", "{\"count\": 1}", &out), SB_EPARAMS);
    CHECK(out == NULL);
    CHECK_STR(sb_error_message(), "A.show: missing required param \"message\" (string)");
    CHECK_STATUS(perform_json(m, "show", "{\"message\": \"hi\", \"count\": \"7\"}", &out), SB_EPARAMS);
    CHECK_STR(sb_error_message(), "A.show: param \"count\": expected int, got string \"7\"");
    CHECK_STATUS(perform_json(m, "show", "{\"message\": 5}", &out), SB_EPARAMS);
    CHECK(ERROR_MENTIONS("expected string, got int"));
    CHECK_STATUS(perform_json(m, "show", "{\"message\": null}", &out), SB_EPARAMS);
    CHECK_STATUS(sb_action_perform(m, "A", "show", NULL, 0, &out), SB_EPARAMS);
    CHECK(reached == 0); /* the action never ran */
    CHECK_STR(sb_status_string(SB_EPARAMS), "params break the action's contract");
    sb_mediator_free(m);
}

/* A notFound with a contract: a failure names notFound and the action that
 * was asked for, whose params notFound got. */
static void test_not_found(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_register_contract(m, "A", "notFound", "id: int", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(perform_json(m, "hide", "{\"id\": 3}", &out), SB_OK);
    sb_value_release(out);
    CHECK_STATUS(perform_json(m, "hide", "{}", &out), SB_EPARAMS);
    CHECK_STR(sb_error_message(), "A.notFound (for A.hide): missing required param \"id\" (int)");
    sb_mediator_free(m);
}

static void test_completion(void) {
    sb_mediator *m = contracted();
    sb_value *out = NULL;
    CHECK_STATUS(perform_json(m, "show", "{\"message\": \"hi\", \"ratio\": 2, \"extra\": true}", &out), SB_OK);
    CHECK(check_int(sb_dict_get(out, "count")) == 3);
    CHECK(sb_value_type(sb_dict_get(out, "ratio")) == SB_DOUBLE);
    CHECK(sb_value_type(sb_dict_get(out, "flag")) == SB_BOOL);
    CHECK(sb_value_type(sb_dict_get(out, "extra")) == SB_BOOL);
    sb_value_release(out);
    /* Params that fit as they are reach the action as the very same value. */
    sb_value *params = NULL;
    CHECK_STATUS(sb_json_decode("{\"message\": \"hi\", \"count\": 1, \"ratio\": 0.5, \"flag\": true}", &params), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "A", "show", params, 0, &out), SB_OK);
    CHECK(out == params);
    sb_value_release(out);
    sb_value_release(params);
    /* Without a contract, anything goes. */
    CHECK_STATUS(perform_json(m, "plain", "{\"count\": \"x\"}", &out), SB_OK);
    sb_value_release(out);
    sb_mediator_free(m);
}

static void test_urls(void) {
    sb_mediator *m = contracted();
    sb_value *out = NULL;
    CHECK_STATUS(sb_url_open(m, "app://A/show?message=hi&count=42&flag=1&ratio=-1.5", NULL, &out), SB_OK);
    CHECK(check_int(sb_dict_get(out, "count")) == 42);
    CHECK(sb_value_type(sb_dict_get(out, "flag")) == SB_BOOL);
    CHECK(sb_value_type(sb_dict_get(out, "ratio")) == SB_DOUBLE);
    sb_value_release(out);
    const char *bad[] = {"count=abc", "count=1.5", "count=", "ratio=inf", "flag=maybe"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char url[128];
        snprintf(url, sizeof url, "app://A/show?message=hi&%s", bad[i]);
        CHECK_STATUS(sb_url_open(m, url, NULL, &out), SB_EPARAMS);
        CHECK(out == NULL);
    }
    reached = 0;
    CHECK_STATUS(sb_url_open(m, "app://A/secret", NULL, &out), SB_EREJECTED);
    CHECK(ERROR_MENTIONS("local"));
    CHECK(reached == 0);
    CHECK_STATUS(sb_action_perform(m, "A", "secret", NULL, 0, &out), SB_OK);
    sb_value_release(out);
    sb_mediator_free(m);
}

static void test_refused(void) {
    sb_mediator *m = sb_mediator_new();
    const char *bad[] = {"x: integer", "x int", "x: int, x: int", "x: int = \"s\"", "x: int = [1,",
                         "-- doc", "{\"params\": 3}", "{\"nope\": 1}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        freed = 0;
        CHECK_STATUS(sb_action_register_contract(m, "A", "x", bad[i], echo, &freed, count_free), SB_EINVAL);
        CHECK(freed == 1);
        CHECK(ERROR_MENTIONS("contract"));
    }
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_perform(m, "A", "x", NULL, 0, &out), SB_ENOTARGET); /* nothing was registered */
    char not_utf8[] = {'x', ':', ' ', (char)0xff, 0};
    CHECK_STATUS(sb_action_register_contract(m, "A", "x", not_utf8, echo, NULL, NULL), SB_EINVAL);
    /* The JSON form is read. */
    CHECK_STATUS(sb_action_register_contract(m, "A", "j", "{\"params\": [{\"name\": \"n\", \"type\": \"int\"}]}",
                                             echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "A", "j", NULL, 0, &out), SB_EPARAMS);
    sb_mediator_free(m);
}

static void test_catalogue(void) {
    sb_mediator *m = contracted();
    char *json = sb_routes_json(m);
    CHECK(json != NULL && strstr(json, "\"contracts\"") != NULL);
    CHECK(json != NULL && strstr(json, "the text to show, with commas") != NULL);
    CHECK(json != NULL && strstr(json, "\"exposure\":\"local\"") != NULL);
    sb_memory_free(json);
    sb_mediator_free(m);
}

static void test_check_contract(void) {
    CHECK_STATUS(sb_contract_check("a: int, b: string? -> bool"), SB_OK);
    CHECK_STATUS(sb_contract_check("a: integer"), SB_EINVAL);
    CHECK(ERROR_MENTIONS("contract") && ERROR_MENTIONS("integer"));
    CHECK_STATUS(sb_contract_check("a: int, a: int"), SB_EINVAL);
    CHECK(ERROR_MENTIONS("twice"));
    CHECK_STATUS(sb_contract_check(NULL), SB_EINVAL);
    char not_utf8[] = {'a', ':', ' ', (char)0xff, 0};
    CHECK_STATUS(sb_contract_check(not_utf8), SB_EINVAL);
}

/* A contract fills in defaults after the caller's keys, and keeps their
 * order and bytes: zeta, alpha and two spellings of e-acute (U+00E9, and e +
 * U+0301) go through a checked call as they went in, x last. */
static void test_order_kept(void) {
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(m, "A", "plain", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register_contract(m, "A", "typed", "x: int = 1", echo, NULL, NULL), SB_OK);
    static const char *keys[] = {"zeta", "alpha", "caf\xC3\xA9", "cafe\xCC\x81", "x"};
    sb_value *params = sb_dict_new();
    for (int i = 0; i < 4; i++) sb_dict_set_new(params, keys[i], sb_int(i));
    for (int typed = 0; typed <= 1; typed++) {
        sb_value *out = NULL;
        CHECK_STATUS(sb_action_perform(m, "A", typed ? "typed" : "plain", params, 0, &out), SB_OK);
        CHECK(sb_value_count(out) == (size_t)(4 + typed));
        for (size_t i = 0; i < sb_value_count(out); i++) {
            const char *key = NULL;
            sb_value *value = NULL;
            CHECK_STATUS(sb_dict_at(out, i, &key, &value), SB_OK);
            CHECK_STR(key, keys[i]);
            CHECK(check_int(value) == (i < 4 ? (int64_t)i : 1));
        }
        sb_value_release(out);
    }
    /* A required param is present only under its own bytes. */
    CHECK_STATUS(sb_action_register_contract(m, "A", "need", "caf\xC3\xA9: int", echo, NULL, NULL), SB_OK);
    sb_value *other = sb_dict_new(), *out = NULL;
    sb_dict_set_new(other, "cafe\xCC\x81", sb_int(1));
    CHECK_STATUS(sb_action_perform(m, "A", "need", other, 0, &out), SB_EPARAMS);
    sb_value_release(other);
    sb_value_release(params);
    sb_mediator_free(m);
}

static void test_null(void) {
    sb_mediator *m = sb_mediator_new();
    freed = 0;
    CHECK_STATUS(sb_action_register_contract(NULL, "A", "x", "n: int", echo, &freed, count_free), SB_EINVAL);
    CHECK(freed == 1);
    CHECK_STATUS(sb_action_register_contract(m, NULL, "x", "n: int", echo, &freed, count_free), SB_EINVAL);
    CHECK(freed == 2);
    CHECK_STATUS(sb_action_register_contract(m, "A", "x", "n: int", NULL, &freed, count_free), SB_EINVAL);
    CHECK(freed == 3);
    sb_mediator_free(m);
}

static sb_status answer_int(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    (void)params;
    reached++;
    *out = sb_int(3);
    return SB_OK;
}

static sb_status answer_string(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    (void)params;
    reached++;
    *out = sb_string("hi");
    return SB_OK;
}

/* A contract's `-> type` is checked where the call is dispatched: a result of
 * another kind is SB_ETYPE naming the action and both types, *out is NULL and
 * the result is released (valgrind sees no leak); int for double and string
 * for bytes are converted, as for params. */
static void test_results(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_register_contract(m, "R", "bad", "-> dict", answer_int, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register_contract(m, "R", "badParams", "n: int? -> string", answer_int, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register_contract(m, "R", "widened", "-> double", answer_int, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register_contract(m, "R", "asBytes", "-> bytes", answer_string, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register_contract(m, "R", "anything", "-> any", answer_int, NULL, NULL), SB_OK);
    int cases = 0;
    reached = 0;
    /* The same call twice (the second is the cached fast path), with params
     * that fit and with ones the contract has to fill in, with caching. */
    for (int i = 0; i < 2; i++, cases++) {
        out = sb_int(9);
        sb_value *stale = out;
        CHECK_STATUS(sb_action_perform(m, "R", "bad", NULL, 0, &out), SB_ETYPE);
        CHECK(out == NULL);
        CHECK_STR(sb_error_message(), "R.bad: expected a dict result, got int");
        sb_value_release(stale);
    }
    sb_value *params = sb_dict_new();
    CHECK_STATUS(sb_dict_set_new(params, "n", sb_int(1)), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "R", "badParams", params, 0, &out), SB_ETYPE);
    CHECK_STR(sb_error_message(), "R.badParams: expected a string result, got int");
    CHECK_STATUS(sb_action_perform(m, "R", "badParams", NULL, SB_CACHE_TARGET, &out), SB_ETYPE);
    CHECK_STATUS(sb_action_perform(m, "R", "bad", NULL, 0, NULL), SB_ETYPE);
    cases += 3;
    /* A prepared route, a URL, options, an observer present. */
    sb_route *route = NULL;
    CHECK_STATUS(sb_route_prepare(m, "R", "badParams", 0, &route), SB_OK);
    CHECK_STATUS(sb_route_call(route, params, &out), SB_ETYPE);
    CHECK_STATUS(sb_route_call(route, NULL, &out), SB_ETYPE);
    sb_route_free(route);
    CHECK_STATUS(sb_url_open(m, "app://R/bad", NULL, &out), SB_ETYPE);
    sb_call_options options = {SB_CALL_OPTIONS_VERSION, SB_CACHE_TARGET, NULL, 0, NULL, 0, NULL};
    CHECK_STATUS(sb_action_perform_opts(m, "R", "bad", NULL, &options, &out), SB_ETYPE);
    cases += 4;
    sb_value_release(params);
    CHECK(reached == cases);
    /* Converted as for params; `any` passes anything. */
    CHECK_STATUS(sb_action_perform(m, "R", "widened", NULL, 0, &out), SB_OK);
    double d = 0;
    CHECK_STATUS(sb_value_get_double(out, &d), SB_OK);
    CHECK(d == 3.0);
    sb_value_release(out);
    CHECK_STATUS(sb_action_perform(m, "R", "asBytes", NULL, 0, &out), SB_OK);
    CHECK(sb_value_type(out) == SB_BYTES);
    sb_value_release(out);
    CHECK_STATUS(sb_action_perform(m, "R", "anything", NULL, 0, &out), SB_OK);
    CHECK(sb_value_type(out) == SB_INT);
    sb_value_release(out);
    /* The answering action's contract decides: notFound, NoTargetAction. */
    CHECK_STATUS(sb_action_register_contract(m, "R", "notFound", "-> dict", answer_string, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "R", "missing", NULL, 0, &out), SB_ETYPE);
    CHECK_STR(sb_error_message(), "R.notFound (for R.missing): expected a dict result, got string");
    CHECK_STATUS(sb_action_register_contract(m, "NoTargetAction", "response", "-> dict", answer_string, NULL, NULL),
                 SB_OK);
    CHECK_STATUS(sb_action_perform(m, "Nowhere", "x", NULL, 0, &out), SB_ETYPE);
    CHECK_STR(sb_error_message(), "NoTargetAction.response: expected a dict result, got string");
    CHECK(out == NULL);
    cases += 2;
    robustness_row("C action result of another kind than its contract's -> type (fast path, cached, route, URL, "
                   "options, notFound, NoTargetAction)", cases, "SB_ETYPE naming the action and both types; result released");
    sb_mediator_free(m);
}

int main(void) {
    test_results();
    test_violations();
    test_not_found();
    test_completion();
    test_urls();
    test_refused();
    test_catalogue();
    test_check_contract();
    test_order_kept();
    test_null();
    return check_report("contracts");
}
