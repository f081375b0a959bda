/* Named services: define an interface, bind a conforming target (checked),
 * perform through the interface, rebind, unbind, remove; the catalogue. */
#include "check.h"

#include <stdint.h>
#include <string.h>

static sb_status answer(void *userdata, const sb_value *params, sb_value **out) {
    (void)params;
    *out = sb_string(userdata);
    return SB_OK;
}

static sb_status charge(void *userdata, const sb_value *params, sb_value **out) {
    int64_t cents = 0;
    sb_value_get_int(sb_dict_get(params, "cents"), &cents);
    *out = sb_bool(cents > 0 && userdata != NULL);
    return SB_OK;
}

static const char *const payments =
    "-- what a payment provider answers\n"
    "charge(cents: int, currency: string = \"EUR\" -> bool)\n"
    "refund(cents: int)\n"
    "status\n";

static void provider(sb_mediator *m, const char *name) {
    CHECK_STATUS(sb_action_register_contract(m, name, "charge", "cents: int, currency: string? -> bool", charge,
                                             (void *)name, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, name, "refund", answer, (void *)"refunded", NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, name, "status", answer, (void *)name, NULL), SB_OK);
}

static int status_is(sb_mediator *m, const char *expected) {
    sb_value *out = NULL;
    sb_status s = sb_service_perform(m, "Payments", "status", NULL, 0, &out);
    int same = s == SB_OK && strcmp(sb_value_get_string(out, NULL), expected) == 0;
    sb_value_release(out);
    return same;
}

static void test_bind_and_perform(void) {
    sb_mediator *m = sb_mediator_new();
    provider(m, "Stripe");
    provider(m, "Adyen");
    CHECK_STATUS(sb_service_define(m, "Payments", payments), SB_OK);
    sb_value *out = NULL;
    CHECK_STATUS(sb_service_perform(m, "Payments", "status", NULL, 0, &out), SB_ENOTARGET);
    CHECK(out == NULL && ERROR_MENTIONS("not bound"));

    CHECK_STATUS(sb_service_bind(m, "Payments", "Stripe"), SB_OK);
    CHECK(status_is(m, "Stripe"));
    sb_value *params = sb_dict_new();
    sb_dict_set_new(params, "cents", sb_int(300));
    CHECK_STATUS(sb_service_perform(m, "Payments", "charge", params, 0, &out), SB_OK);
    int yes = 0;
    CHECK(sb_value_get_bool(out, &yes) == SB_OK && yes);
    sb_value_release(out);
    /* The target's contract is checked, as sb_action_perform checks it. */
    sb_dict_set_new(params, "cents", sb_string("300"));
    CHECK_STATUS(sb_service_perform(m, "Payments", "charge", params, 0, &out), SB_EPARAMS);
    sb_value_release(params);

    /* Rebinding switches at once; NULL unbinds. */
    CHECK_STATUS(sb_service_bind(m, "Payments", "Adyen"), SB_OK);
    CHECK(status_is(m, "Adyen"));
    CHECK_STATUS(sb_service_bind(m, "Payments", NULL), SB_OK);
    CHECK(!status_is(m, "Adyen"));

    /* An action the interface does not declare, even one the target has. */
    CHECK_STATUS(sb_action_register(m, "Stripe", "delete", answer, (void *)"gone", NULL), SB_OK);
    CHECK_STATUS(sb_service_bind(m, "Payments", "Stripe"), SB_OK);
    CHECK_STATUS(sb_service_perform(m, "Payments", "delete", NULL, 0, &out), SB_ENOACTION);
    CHECK(ERROR_MENTIONS("charge, refund, status"));

    /* The catalogue lists it with its binding. */
    char *json = sb_routes_json(m);
    CHECK(json != NULL && strstr(json, "\"kind\":\"interface\"") != NULL);
    CHECK(json != NULL && strstr(json, "\"target\":\"Stripe\"") != NULL);
    sb_memory_free(json);

    /* Redefining drops the binding; removing removes. */
    CHECK_STATUS(sb_service_define(m, "Payments", payments), SB_OK);
    CHECK(!status_is(m, "Stripe"));
    CHECK_STATUS(sb_service_remove(m, "Payments"), SB_OK);
    CHECK_STATUS(sb_service_remove(m, "Payments"), SB_ENOTFOUND);
    CHECK_STATUS(sb_service_perform(m, "Payments", "status", NULL, 0, &out), SB_ENOTFOUND);
    sb_mediator_free(m);
}

static void test_conformance(void) {
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_service_define(m, "Payments", payments), SB_OK);
    /* Missing actions (notFound does not count) and a param of another type. */
    CHECK_STATUS(sb_action_register_contract(m, "Half", "charge", "cents: string -> bool", charge, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "Half", "notFound", answer, (void *)"?", NULL), SB_OK);
    CHECK_STATUS(sb_service_bind(m, "Payments", "Half"), SB_ETYPE); /* does not conform */
    CHECK(ERROR_MENTIONS("refund is missing") && ERROR_MENTIONS("status is missing"));
    CHECK(ERROR_MENTIONS("param \"cents\" is string on the target, int in the interface"));
    /* A result the interface declares and the target does not. */
    CHECK_STATUS(sb_action_register(m, "Loose", "charge", charge, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "Loose", "refund", answer, (void *)"r", NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "Loose", "status", answer, (void *)"s", NULL), SB_OK);
    CHECK_STATUS(sb_service_bind(m, "Payments", "Loose"), SB_ETYPE);
    CHECK(ERROR_MENTIONS("declares result bool, the target declares none"));
    /* No such target; no such service. */
    CHECK_STATUS(sb_service_bind(m, "Payments", "Nobody"), SB_ENOTFOUND);
    CHECK_STATUS(sb_service_bind(m, "Nothing", "Half"), SB_ENOTFOUND);
    /* Bad interfaces. */
    CHECK_STATUS(sb_service_define(m, "S", ""), SB_EINVAL);
    CHECK_STATUS(sb_service_define(m, "S", "a\na"), SB_EINVAL);
    CHECK(ERROR_MENTIONS("declared twice"));
    CHECK_STATUS(sb_service_define(m, "S", "a(x: nosuchtype)"), SB_EINVAL);
    CHECK_STATUS(sb_service_define(m, "S", "a(x: int"), SB_EINVAL);
    CHECK_STATUS(sb_service_define(m, "S", "\xff"), SB_EINVAL);
    /* CRLF line ends (found in a hostile review: "\r\n" was no line end). */
    CHECK_STATUS(sb_service_define(m, "S", "refund(cents: int)\r\ncharge(cents: int)\r\nstatus\r\n"), SB_OK);
    CHECK_STATUS(sb_action_register(m, "Crlf", "refund", answer, (void *)"r", NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "Crlf", "charge", answer, (void *)"c", NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "Crlf", "status", answer, (void *)"s", NULL), SB_OK);
    CHECK_STATUS(sb_service_bind(m, "S", "Crlf"), SB_OK);
    sb_value *out = NULL;
    CHECK_STATUS(sb_service_perform(m, "S", "a", NULL, 0, &out), SB_ENOACTION);
    CHECK_STATUS(sb_service_perform(m, "Nothing", "a", NULL, 0, &out), SB_ENOTFOUND);
    sb_mediator_free(m);
    robustness_row("C service interfaces: bad interface texts, CRLF line ends, nonconforming targets (missing "
                   "actions, param and result types, notFound only), unknown targets and services, undeclared "
                   "actions", 12, "SB_EINVAL / SB_ENOTARGET / SB_ENOACTION with a message naming what is missing; "
                   "nothing bound by a refusal; a CRLF line end ends an action");
}

static sb_status currency(void *userdata, const sb_value *params, sb_value **out) {
    (void)userdata;
    const char *given = sb_value_get_string(sb_dict_get(params, "currency"), NULL);
    *out = sb_string(given != NULL ? given : "none");
    return SB_OK;
}

static sb_status forty_two(void *userdata, const sb_value *params, sb_value **out) {
    (void)userdata;
    (void)params;
    *out = sb_int(42);
    return SB_OK;
}

static sb_status echo(void *userdata, const sb_value *params, sb_value **out) {
    (void)userdata;
    *out = sb_value_retain((sb_value *)params);
    return SB_OK;
}

/* Found in a hostile review (issue 20): the interface was checked only when
 * a target was bound. The target can be replaced since, or gone so that a
 * fallback answers; a module key in the params moved the call to another
 * target; the interface's defaults were never filled in. */
static void test_interface_holds_at_the_call(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL, *params = sb_dict_new();
    CHECK_STATUS(sb_service_define(m, "Quotes", "quote(cents: int, currency: string = \"EUR\" -> string)"), SB_OK);
    CHECK_STATUS(sb_action_register_contract(m, "Q", "quote", "cents: int, currency: string? -> string", currency,
                                             NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "Other.Q", "quote", answer, (void *)"other", NULL), SB_OK);
    CHECK_STATUS(sb_service_bind(m, "Quotes", "Q"), SB_OK);
    int cases = 0;

    /* The interface's default is filled in; its required param is required. */
    sb_dict_set_new(params, "cents", sb_int(1));
    CHECK_STATUS(sb_service_perform(m, "Quotes", "quote", params, 0, &out), SB_OK);
    CHECK_STR(sb_value_get_string(out, NULL), "EUR");
    sb_value_release(out);
    CHECK_STATUS(sb_service_perform(m, "Quotes", "quote", NULL, 0, &out), SB_EPARAMS);
    CHECK(out == NULL && ERROR_MENTIONS("service Quotes.quote"));
    cases += 2;

    /* The binding alone picks the target: a module key is only a param. */
    sb_dict_set_new(params, SB_MODULE_KEY, sb_string("Other"));
    sb_dict_set_new(params, "currency", sb_string("USD"));
    CHECK_STATUS(sb_service_perform(m, "Quotes", "quote", params, 0, &out), SB_OK);
    CHECK_STR(sb_value_get_string(out, NULL), "USD");
    sb_value_release(out);
    cases++;

    /* The target gone: the fallback's answer is held to the interface, or,
     * with SB_NO_FALLBACK, nothing answers. */
    CHECK_STATUS(sb_target_unregister(m, "Q"), SB_OK);
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_service_perform(m, "Quotes", "quote", params, 0, &out), SB_ETYPE);
    CHECK(out == NULL && ERROR_MENTIONS("service Quotes.quote: expected a string result, got dict"));
    CHECK_STATUS(sb_service_perform(m, "Quotes", "quote", params, SB_NO_FALLBACK, &out), SB_ENOTARGET);
    cases += 2;

    /* Replaced by a target that breaks the interface. */
    CHECK_STATUS(sb_action_register(m, "Q", "quote", forty_two, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_service_perform(m, "Quotes", "quote", params, 0, &out), SB_ETYPE);
    CHECK(out == NULL && ERROR_MENTIONS("expected a string result, got int"));
    CHECK_STATUS(sb_service_perform(m, "Quotes", "quote", params, 0, NULL), SB_ETYPE);
    cases += 2;

    /* Flags and params as sb_action_perform takes them. */
    CHECK_STATUS(sb_service_perform(m, "Quotes", "quote", params, 0x100, &out), SB_EINVAL);
    sb_value *array = sb_array_new();
    CHECK_STATUS(sb_service_perform(m, "Quotes", "quote", array, 0, &out), SB_ETYPE);
    sb_value_release(array);
    cases += 2;
    sb_value_release(params);
    sb_mediator_free(m);
    robustness_row("C calls through a service whose binding no longer conforms (target replaced, gone with a "
                   "fallback answering), missing params, a module key in the params, bad flags and params",
                   cases, "the interface's contract is checked at the call: SB_EPARAMS / SB_ETYPE naming the "
                   "service; defaults filled in; the bound target answers");
}

/* A discoverer that binds the service to the next unknown name: each search
 * starts another. The recursion stops at the depth limit, not the stack. */
static int deepest_search;
static sb_status bind_next(void *ud, sb_mediator *m, const char *target) {
    (void)ud;
    int n = atoi(target + 1);
    char next[32];
    if (n > deepest_search) deepest_search = n;
    snprintf(next, sizeof next, "X%d", n + 1);
    (void)sb_service_bind(m, "Chain", next);
    return SB_ENOTARGET;
}

static void test_binding_from_a_discoverer_is_bounded(void) {
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_service_define(m, "Chain", "a"), SB_OK);
    CHECK_STATUS(sb_discoverer_add(m, bind_next, NULL, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_service_bind(m, "Chain", "X0"), SB_ENOTFOUND);
    CHECK(deepest_search > 0 && deepest_search < SB_MAX_CALL_DEPTH);
    sb_mediator_free(m);
}

int main(void) {
    test_bind_and_perform();
    test_conformance();
    test_interface_holds_at_the_call();
    test_binding_from_a_discoverer_is_bounded();
    return check_report("services");
}
