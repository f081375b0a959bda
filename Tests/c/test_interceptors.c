/* Interceptors, rules, observers and cancellation: interceptor order and
 * removal, every decision, what an interceptor sees, failing and pending
 * interceptors (answers from another thread, timeouts, late and second
 * decisions, one that never decides), cancellation tokens, bypass, routing
 * rules (URL and local rewrites, redirect loops, degrade rules, the degrade
 * handler), observers, interceptors added and removed while 4 threads
 * perform, and NULL arguments. */
#include "check.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static void sleep_ms(long ms) {
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

static int freed;
static void count_free(void *p) {
    (void)p;
    freed++;
}

/* Targets run, counted. */
static int reached;

/* Returns its params as they arrived. */
static sb_status echo(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    reached++;
    *out = sb_value_retain((sb_value *)params);
    return SB_OK;
}

/* Returns the string in userdata (e.g. "New.show"). */
static sb_status name_of(void *u, const sb_value *params, sb_value **out) {
    (void)params;
    reached++;
    *out = sb_string(u);
    return SB_OK;
}

/* The string result of a call, or "" when it is not a string. */
static const char *str_of(const sb_value *v) {
    const char *s = sb_value_get_string(v, NULL);
    return s ? s : "";
}

/* The int under `key` of a dict, or INT64_MIN. */
static int64_t int_at(const sb_value *dict, const char *key) {
    return check_int(sb_dict_get(dict, key));
}

/* The entry of sb_routes' "interceptors" named `name`: a new reference, or NULL. */
static sb_value *routes_interceptor(sb_mediator *m, const char *name) {
    sb_value *routes = NULL, *found = NULL;
    if (sb_routes(m, &routes) != SB_OK) return NULL;
    sb_value *list = sb_dict_get(routes, "interceptors");
    for (size_t i = 0; i < sb_value_count(list); i++) {
        sb_value *entry = sb_array_get(list, i);
        const char *n = sb_value_get_string(sb_dict_get(entry, "name"), NULL);
        if (n != NULL && strcmp(n, name) == 0) found = sb_value_retain(entry);
    }
    sb_value_release(routes);
    return found;
}

/* ------------------------------------------------------------------ order */

static char order_log[64];

/* Appends its name (userdata) to order_log; the call goes on. */
static int log_name(void *u, sb_call *call) {
    (void)call;
    strncat(order_log, u, sizeof order_log - strlen(order_log) - 1);
    return SB_OK;
}

static void test_order(void) {
    sb_mediator *m = sb_mediator_new();
    uint64_t a = 0, b = 0, c = 0, unknown;
    sb_value *out = NULL;
    freed = 0;
    CHECK_STATUS(sb_action_register(m, "T", "act", name_of, "T.act", NULL), SB_OK);
    CHECK_STATUS(sb_interceptor_add(m, 10, log_name, "A", count_free, &a), SB_OK);
    CHECK_STATUS(sb_interceptor_add(m, 0, log_name, "B", count_free, &b), SB_OK);
    CHECK_STATUS(sb_interceptor_add(m, 10, log_name, "C", count_free, &c), SB_OK);
    CHECK(a != b && b != c && a != c);

    order_log[0] = '\0';
    CHECK_STATUS(sb_action_perform(m, "T", "act", NULL, 0, &out), SB_OK);
    CHECK_STR(str_of(out), "T.act");
    CHECK_STR(order_log, "ACB"); /* 10 (first added), 10 (second), 0 */
    sb_value_release(out);

    CHECK_STATUS(sb_interceptor_remove(m, c), SB_OK);
    CHECK(freed == 1);
    order_log[0] = '\0';
    CHECK_STATUS(sb_action_perform(m, "T", "act", NULL, 0, NULL), SB_OK);
    CHECK_STR(order_log, "AB");

    CHECK_STATUS(sb_interceptor_remove(m, c), SB_ENOTFOUND); /* already removed */
    unknown = a + b + c + 1000;
    CHECK_STATUS(sb_interceptor_remove(m, unknown), SB_ENOTFOUND);
    CHECK(freed == 1);

    CHECK_STATUS(sb_interceptor_remove(m, a), SB_OK);
    CHECK(freed == 2);
    order_log[0] = '\0';
    CHECK_STATUS(sb_action_perform(m, "T", "act", NULL, 0, NULL), SB_OK);
    CHECK_STR(order_log, "B");

    /* The mediator's free runs the destructor of what is left, once. */
    sb_mediator_free(m);
    CHECK(freed == 3);
}

/* Ids are unique in the process: another mediator's interceptor or observer
 * id is unknown to this one (each mediator counted from 1, so removing an id
 * of one removed the other's hook with the same number). */
static void observe_nothing(void *u, const sb_call_event *e) {
    (void)u;
    (void)e;
}

static void test_ids_of_another_mediator(void) {
    sb_mediator *a = sb_mediator_new(), *b = sb_mediator_new();
    uint64_t in_a = 0, observed_in_a = 0, in_b = 0, observed_in_b = 0;
    freed = 0;
    CHECK_STATUS(sb_interceptor_add(a, 0, log_name, "A", count_free, &in_a), SB_OK);
    CHECK_STATUS(sb_observer_add(a, observe_nothing, NULL, count_free, &observed_in_a), SB_OK);
    CHECK_STATUS(sb_interceptor_add(b, 0, log_name, "B", count_free, &in_b), SB_OK);
    CHECK_STATUS(sb_observer_add(b, observe_nothing, NULL, count_free, &observed_in_b), SB_OK);
    CHECK(in_a != in_b && observed_in_a != observed_in_b);
    CHECK_STATUS(sb_interceptor_remove(b, in_a), SB_ENOTFOUND);
    CHECK_STATUS(sb_observer_remove(b, observed_in_a), SB_ENOTFOUND);
    CHECK(freed == 0);
    CHECK_STATUS(sb_action_register(b, "T", "act", name_of, "T.act", NULL), SB_OK);
    order_log[0] = '\0';
    CHECK_STATUS(sb_action_perform(b, "T", "act", NULL, 0, NULL), SB_OK);
    CHECK_STR(order_log, "B"); /* b's interceptor is still there */
    CHECK_STATUS(sb_interceptor_remove(a, in_a), SB_OK);
    CHECK_STATUS(sb_observer_remove(a, observed_in_a), SB_OK);
    sb_mediator_free(a);
    sb_mediator_free(b);
    CHECK(freed == 4);
    robustness_row("Interceptor and observer ids of another mediator removed (C)", 2,
                   "SB_ENOTFOUND: ids are unique in the process; the other mediator's hooks stay");
}

/* ------------------------------------- passing through, against proceeding */

/* An interceptor that returns without deciding proceeds by a shorter path
 * than one that calls sb_call_proceed (no decision written, no waiter woken:
 * Interception.proceedWhileShown). Every call must come out the same either
 * way: results, statuses, messages, what observers and later interceptors
 * see, a call made from inside an interceptor. */
static char transcript[4096];

static void note(const char *fmt, const char *a, const char *b) {
    size_t used = strlen(transcript);
    snprintf(transcript + used, sizeof transcript - used, fmt, a, b);
}

static int pass_through(void *u, sb_call *call) {
    (void)u;
    (void)call;
    return SB_OK;
}

static int explicit_proceed(void *u, sb_call *call) {
    (void)u;
    return sb_call_proceed(call);
}

/* Sees the call after the first interceptor, and re-enters once. */
static int looks_and_reenters(void *u, sb_call *call) {
    sb_mediator *m = u;
    note("[%s.%s ", sb_call_target(call), sb_call_action(call));
    note("%s %s]", sb_call_interceptor(call) ? "named" : "unnamed", sb_call_url(call) ? sb_call_url(call) : "-");
    if (strcmp(sb_call_action(call), "act") == 0) {
        sb_value *out = NULL;
        sb_status st = sb_action_perform(m, "T", "inner", NULL, 0, &out);
        note("(inner %s %s)", st == SB_OK ? "ok" : "failed", str_of(out));
        sb_value_release(out);
    }
    return SB_OK;
}

static void note_event(void *u, const sb_call_event *e) {
    (void)u;
    note("{%s %s", e->phase == SB_CALL_START ? "start" : "end", e->target ? e->target : "-");
    note(" %s %s}", e->message ? e->message : "", e->result ? str_of(e->result) : "");
}

static int destroyed;
static void count_destroy(void *u) {
    (void)u;
    destroyed++;
}
static sb_status unused_fn(void *u, const sb_value *args, sb_value **out) {
    (void)u;
    (void)args;
    (void)out;
    return SB_OK;
}

static void calls_into_transcript(sb_mediator *m) {
    const char *const tags[] = {"t1"};
    sb_call_options tagged = SB_CALL_OPTIONS_INIT;
    tagged.tags = tags;
    tagged.tag_count = 1;
    struct {
        const char *target, *action;
    } calls[] = {{"T", "act"}, {"T", "inner"}, {"Nobody", "act"}, {"T", "missing"}, {"T", "act"}};
    transcript[0] = '\0';
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        sb_value *out = NULL;
        sb_status st = sb_action_perform_opts(m, calls[i].target, calls[i].action, NULL, i == 4 ? &tagged : NULL, &out);
        note("<%s %s>", st == SB_OK ? "ok" : sb_error_message(), str_of(out));
        sb_value_release(out);
    }
    sb_value *out = NULL;
    sb_status st = sb_url_open(m, "app://T/act", NULL, &out);
    note("<url %s %s>", st == SB_OK ? "ok" : sb_error_message(), str_of(out));
    sb_value_release(out);
}

static void test_pass_through_as_proceed(void) {
    char first[sizeof transcript];
    for (int i = 0; i < 2; i++) {
        sb_mediator *m = sb_mediator_new();
        CHECK_STATUS(sb_action_register(m, "T", "act", name_of, "T.act", NULL), SB_OK);
        CHECK_STATUS(sb_action_register(m, "T", "inner", name_of, "T.inner", NULL), SB_OK);
        CHECK_STATUS(sb_interceptor_add(m, 5, i == 0 ? pass_through : explicit_proceed, NULL, NULL, NULL), SB_OK);
        CHECK_STATUS(sb_interceptor_add(m, 0, looks_and_reenters, m, NULL, NULL), SB_OK);
        CHECK_STATUS(sb_observer_add(m, note_event, NULL, NULL, NULL), SB_OK);
        calls_into_transcript(m);
        if (i == 0) memcpy(first, transcript, sizeof first);
        sb_mediator_free(m);
    }
    CHECK(strstr(first, "(inner ok T.inner)") != NULL && strstr(first, "no target named") != NULL);
    CHECK_STR(first, transcript);

    /* What a passed-through call carried is not kept past the call: the
     * params' callback is destroyed when the caller releases them, and the
     * interceptor's userdata when it is removed. */
    sb_mediator *m = sb_mediator_new();
    uint64_t id = 0;
    freed = 0;
    destroyed = 0;
    CHECK_STATUS(sb_action_register(m, "T", "act", name_of, "T.act", NULL), SB_OK);
    CHECK_STATUS(sb_interceptor_add(m, 0, pass_through, NULL, count_free, &id), SB_OK);
    sb_value *params = sb_dict_new();
    CHECK_STATUS(sb_dict_set_new(params, "cb", sb_callback_new(unused_fn, NULL, count_destroy)), SB_OK);
    for (int i = 0; i < 3; i++) CHECK_STATUS(sb_action_perform(m, "T", "act", params, 0, NULL), SB_OK);
    sb_value_release(params);
    CHECK(destroyed == 1);
    CHECK_STATUS(sb_interceptor_remove(m, id), SB_OK);
    CHECK(freed == 1);
    sb_mediator_free(m);
    CHECK(freed == 1);
}

/* -------------------------------------------------------------- decisions */

enum mode { PROCEED, REDIRECT, REPARAM, REJECT, REJECT_OK, REJECT_DEFAULT, ANSWER };
static enum mode mode;
static char seen_target[64], seen_action[64];
static sb_status decision_status;

static void copy_str(char *dst, size_t n, const char *src) {
    snprintf(dst, n, "%s", src ? src : "(null)");
}

static int decide(void *u, sb_call *call) {
    (void)u;
    sb_value *v;
    switch (mode) {
    case PROCEED: decision_status = sb_call_proceed(call); break;
    case REDIRECT:
        /* Interceptors run again after a redirect: only Src goes to Dst. */
        if (strcmp(sb_call_target(call), "Src") == 0) decision_status = sb_call_redirect(call, "Dst", "other", NULL);
        break;
    case REPARAM:
        v = sb_dict_new();
        sb_dict_set_new(v, "replaced", sb_bool(1));
        decision_status = sb_call_redirect(call, NULL, NULL, v);
        sb_value_release(v); /* borrowed by the decision */
        break;
    case REJECT: decision_status = sb_call_reject(call, SB_EREJECTED, "no entry today"); break;
    case REJECT_OK: decision_status = sb_call_reject(call, SB_OK, "not an error status"); break;
    case REJECT_DEFAULT: decision_status = sb_call_reject(call, SB_EACTION, NULL); break;
    case ANSWER:
        v = sb_int(42);
        decision_status = sb_call_answer(call, v);
        sb_value_release(v);
        break;
    }
    return SB_OK;
}

/* Records where the call goes when it reaches it. */
static int record_destination(void *u, sb_call *call) {
    (void)u;
    copy_str(seen_target, sizeof seen_target, sb_call_target(call));
    copy_str(seen_action, sizeof seen_action, sb_call_action(call));
    return SB_OK;
}

static void test_decisions(void) {
    sb_mediator *m = sb_mediator_new();
    uint64_t id = 0;
    sb_value *params = sb_dict_new(), *out = NULL;
    sb_dict_set_new(params, "n", sb_int(1));
    CHECK_STATUS(sb_action_register(m, "Src", "act", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "Dst", "other", name_of, "Dst.other", NULL), SB_OK);
    CHECK_STATUS(sb_interceptor_add(m, 5, decide, NULL, NULL, &id), SB_OK);
    CHECK_STATUS(sb_interceptor_set_options(m, id, "decider", 0), SB_OK);
    CHECK_STATUS(sb_interceptor_add(m, 1, record_destination, NULL, NULL, NULL), SB_OK);

    /* Proceed: the target runs with the caller's params. */
    mode = PROCEED;
    reached = 0;
    CHECK_STATUS(sb_action_perform(m, "Src", "act", params, 0, &out), SB_OK);
    CHECK(decision_status == SB_OK && reached == 1 && sb_value_equal(out, params));
    CHECK_STR(seen_target, "Src");
    sb_value_release(out);

    /* Redirect: Dst.other answers; the later interceptor sees the new destination. */
    mode = REDIRECT;
    reached = 0;
    seen_target[0] = seen_action[0] = '\0';
    CHECK_STATUS(sb_action_perform(m, "Src", "act", params, 0, &out), SB_OK);
    CHECK(decision_status == SB_OK && reached == 1);
    CHECK_STR(str_of(out), "Dst.other");
    CHECK_STR(seen_target, "Dst");
    CHECK_STR(seen_action, "other");
    sb_value_release(out);

    /* Redirect with params only: the same target gets the new params. */
    mode = REPARAM;
    reached = 0;
    CHECK_STATUS(sb_action_perform(m, "Src", "act", params, 0, &out), SB_OK);
    CHECK(decision_status == SB_OK && reached == 1);
    CHECK(sb_value_type(out) == SB_DICT && sb_value_count(out) == 1 && sb_dict_get(out, "replaced") != NULL &&
          sb_dict_get(out, "n") == NULL);
    CHECK_STR(seen_target, "Src");
    sb_value_release(out);

    /* Reject: the status and message reach the caller; no target runs. */
    mode = REJECT;
    reached = 0;
    out = sb_int(-1); /* set to NULL on failure */
    CHECK_STATUS(sb_action_perform(m, "Src", "act", params, 0, &out), SB_EREJECTED);
    CHECK(decision_status == SB_OK && reached == 0 && out == NULL);
    CHECK(ERROR_MENTIONS("no entry today"));

    /* A status that is no error becomes SB_EREJECTED; a NULL message names the interceptor. */
    mode = REJECT_OK;
    CHECK_STATUS(sb_action_perform(m, "Src", "act", params, 0, &out), SB_EREJECTED);
    CHECK(ERROR_MENTIONS("not an error status"));
    mode = REJECT_DEFAULT;
    CHECK_STATUS(sb_action_perform(m, "Src", "act", params, 0, &out), SB_EACTION);
    CHECK(ERROR_MENTIONS("decider"));
    CHECK(reached == 0 && out == NULL);

    /* Answer: the caller gets the value; no target runs. */
    mode = ANSWER;
    CHECK_STATUS(sb_action_perform(m, "Src", "act", params, 0, &out), SB_OK);
    CHECK(decision_status == SB_OK && reached == 0 && check_int(out) == 42);
    sb_value_release(out);

    /* Prepared routes and URL opens are intercepted too. */
    sb_route *route = NULL;
    mode = REJECT;
    CHECK_STATUS(sb_route_prepare(m, "Src", "act", 0, &route), SB_OK);
    CHECK_STATUS(sb_route_call(route, params, &out), SB_EREJECTED);
    CHECK(ERROR_MENTIONS("no entry today"));
    CHECK_STATUS(sb_url_open(m, "app://Src/act", NULL, &out), SB_EREJECTED);
    CHECK(reached == 0 && out == NULL);
    mode = ANSWER;
    CHECK_STATUS(sb_route_call(route, params, &out), SB_OK);
    CHECK(check_int(out) == 42);
    sb_value_release(out);
    sb_route_free(route);

    sb_value_release(params);
    sb_mediator_free(m);
}

/* ------------------------------------------------------- what it sees */

static struct {
    char target[32], action[32], url[64], name[64], tag0[16], tag1[16];
    char k[16];
    int params_is_dict, tag2_is_null, calls;
    size_t tag_count;
} seen;

static int observe_call(void *u, sb_call *call) {
    const sb_value *params = sb_call_params(call);
    (void)u;
    seen.calls++;
    copy_str(seen.target, sizeof seen.target, sb_call_target(call));
    copy_str(seen.action, sizeof seen.action, sb_call_action(call));
    copy_str(seen.url, sizeof seen.url, sb_call_url(call));
    copy_str(seen.name, sizeof seen.name, sb_call_interceptor(call));
    seen.params_is_dict = params != NULL && sb_value_type(params) == SB_DICT;
    copy_str(seen.k, sizeof seen.k, sb_value_get_string(sb_dict_get(params, "k"), NULL));
    seen.tag_count = sb_call_tag_count(call);
    copy_str(seen.tag0, sizeof seen.tag0, sb_call_tag(call, 0));
    copy_str(seen.tag1, sizeof seen.tag1, sb_call_tag(call, 1));
    seen.tag2_is_null = sb_call_tag(call, seen.tag_count) == NULL && sb_call_tag(call, (size_t)-1) == NULL;
    return SB_OK;
}

/* Answers every call with the value its userdata names. */
static int answer_with(void *u, sb_call *call) {
    sb_value *v = strcmp(u, "string") == 0 ? sb_string("free") : sb_int(4);
    decision_status = sb_call_answer(call, v);
    sb_value_release(v);
    return SB_OK;
}

/* Found in a hostile review (issue 20): an interceptor's answer skipped the
 * check of the action's declared result that every other path makes. */
static void test_answer_checked(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_register_contract(m, "T", "count", "-> int", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register_contract(m, "T", "ratio", "-> double", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "T", "plain", echo, NULL, NULL), SB_OK);
    uint64_t id = 0;
    CHECK_STATUS(sb_interceptor_add(m, 0, answer_with, (void *)"string", NULL, &id), SB_OK);
    CHECK_STATUS(sb_interceptor_set_options(m, id, "mock", 0), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "T", "count", NULL, 0, &out), SB_ETYPE);
    CHECK(out == NULL && ERROR_MENTIONS("T.count: expected an int result, got string")
          && ERROR_MENTIONS("interceptor \"mock\""));
    CHECK_STATUS(sb_url_open(m, "app://T/count", NULL, &out), SB_ETYPE);
    CHECK_STATUS(sb_action_perform(m, "T", "plain", NULL, 0, &out), SB_OK);
    CHECK_STR(sb_value_get_string(out, NULL), "free");
    sb_value_release(out);
    CHECK_STATUS(sb_action_perform(m, "Nobody", "x", NULL, 0, &out), SB_OK);
    sb_value_release(out);
    CHECK_STATUS(sb_interceptor_remove(m, id), SB_OK);
    /* Converted as the action's own result: an int for a double. */
    CHECK_STATUS(sb_interceptor_add(m, 0, answer_with, (void *)"int", NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "T", "ratio", NULL, 0, &out), SB_OK);
    CHECK(sb_value_type(out) == SB_DOUBLE);
    sb_value_release(out);
    CHECK_STATUS(sb_action_perform(m, "T", "count", NULL, 0, &out), SB_OK);
    CHECK(check_int(out) == 4);
    sb_value_release(out);
    sb_mediator_free(m);
    robustness_row("C interceptor answers of another kind than the action's -> type (perform, URL; converted; "
                   "undeclared; no such target)", 6, "SB_ETYPE naming the action, both types and the interceptor; "
                   "conversions as for results");
}

static void test_what_it_sees(void) {
    sb_mediator *m = sb_mediator_new();
    uint64_t id = 0;
    char default_name[64];
    sb_value *params = sb_dict_new(), *out = NULL;
    static const char *const tags[] = {"checkout", "beta"};
    sb_call_options opts = SB_CALL_OPTIONS_INIT;
    sb_dict_set_new(params, "k", sb_string("local"));
    CHECK_STATUS(sb_action_register(m, "T", "act", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_interceptor_add(m, 0, observe_call, NULL, NULL, &id), SB_OK);

    /* A perform: no URL, no tags, the default name. */
    memset(&seen, 0, sizeof seen);
    CHECK_STATUS(sb_action_perform(m, "T", "act", params, 0, &out), SB_OK);
    sb_value_release(out);
    CHECK(seen.calls == 1);
    CHECK_STR(seen.target, "T");
    CHECK_STR(seen.action, "act");
    CHECK_STR(seen.url, "(null)");
    CHECK(seen.params_is_dict);
    CHECK_STR(seen.k, "local");
    CHECK(seen.tag_count == 0 && seen.tag2_is_null);
    CHECK_STR(seen.tag0, "(null)");
    snprintf(default_name, sizeof default_name, "C interceptor %llu", (unsigned long long)id);
    CHECK_STR(seen.name, default_name);

    /* No params: still a dict. */
    memset(&seen, 0, sizeof seen);
    CHECK_STATUS(sb_action_perform(m, "T", "act", NULL, 0, NULL), SB_OK);
    CHECK(seen.params_is_dict);

    /* Tags and a name. */
    CHECK_STATUS(sb_interceptor_set_options(m, id, "seer", 0), SB_OK);
    opts.tags = tags;
    opts.tag_count = 2;
    memset(&seen, 0, sizeof seen);
    CHECK_STATUS(sb_action_perform_opts(m, "T", "act", params, &opts, &out), SB_OK);
    CHECK(sb_value_equal(out, params));
    sb_value_release(out);
    CHECK(seen.tag_count == 2 && seen.tag2_is_null);
    CHECK_STR(seen.tag0, "checkout");
    CHECK_STR(seen.tag1, "beta");
    CHECK_STR(seen.name, "seer");
    CHECK_STR(seen.url, "(null)");

    /* A URL: its text, the target and action it names, the query as params. */
    memset(&seen, 0, sizeof seen);
    CHECK_STATUS(sb_url_open(m, "app://T/act?k=v", NULL, &out), SB_OK);
    CHECK_STR(str_of(sb_dict_get(out, "k")), "v");
    sb_value_release(out);
    CHECK(seen.calls == 1);
    CHECK_STR(seen.url, "app://T/act?k=v");
    CHECK_STR(seen.target, "T");
    CHECK_STR(seen.action, "act");
    CHECK_STR(seen.k, "v");
    CHECK(seen.tag_count == 0);

    /* sb_url_open: tags for URL calls too. */
    memset(&seen, 0, sizeof seen);
    CHECK_STATUS(sb_url_open(m, "app://T/act?k=w", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .call = &opts}, &out), SB_OK);
    sb_value_release(out);
    CHECK_STR(seen.url, "app://T/act?k=w");
    CHECK(seen.tag_count == 2);
    CHECK_STR(seen.tag1, "beta");

    /* The name and timeout show in sb_routes. */
    CHECK_STATUS(sb_interceptor_set_options(m, id, "seer", 250), SB_OK);
    sb_value *entry = routes_interceptor(m, "seer");
    CHECK(entry != NULL);
    CHECK(int_at(entry, "timeout_ms") == 250);
    CHECK(int_at(entry, "id") == (int64_t)id);
    CHECK(int_at(entry, "priority") == 0);
    sb_value_release(entry);
    CHECK_STATUS(sb_interceptor_set_options(m, id, "seer2", 0), SB_OK); /* 0 keeps the timeout */
    entry = routes_interceptor(m, "seer2");
    CHECK(entry != NULL && int_at(entry, "timeout_ms") == 250);
    sb_value_release(entry);

    sb_value_release(params);
    sb_mediator_free(m);
}

/* ------------------------------------------------------ failing interceptor */

static int fail_boom(void *u, sb_call *call) {
    (void)u; (void)call;
    sb_error_set("boom");
    return SB_EACTION;
}

static int fail_unknown(void *u, sb_call *call) {
    (void)u; (void)call;
    sb_error_set("odd status");
    return 77;
}

static void test_failing_interceptor(void) {
    sb_mediator *m = sb_mediator_new();
    uint64_t id = 0;
    sb_value *out = sb_int(0);
    CHECK_STATUS(sb_action_register(m, "T", "act", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_interceptor_add(m, 0, fail_boom, NULL, NULL, &id), SB_OK);
    CHECK_STATUS(sb_interceptor_set_options(m, id, "failer", 0), SB_OK);
    reached = 0;
    CHECK_STATUS(sb_action_perform(m, "T", "act", NULL, 0, &out), SB_EACTION);
    CHECK(out == NULL && reached == 0);
    CHECK(ERROR_MENTIONS("failer") && ERROR_MENTIONS("boom"));
    CHECK_STATUS(sb_url_open(m, "app://T/act", NULL, &out), SB_EACTION);
    CHECK(ERROR_MENTIONS("failer") && ERROR_MENTIONS("boom"));
    CHECK_STATUS(sb_interceptor_remove(m, id), SB_OK);

    /* A number that is no status fails the call too (as SB_EACTION, like an action's). */
    CHECK_STATUS(sb_interceptor_add(m, 0, fail_unknown, NULL, NULL, &id), SB_OK);
    CHECK_STATUS(sb_interceptor_set_options(m, id, "oddball", 0), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "T", "act", NULL, 0, &out), SB_EACTION);
    CHECK(ERROR_MENTIONS("oddball") && ERROR_MENTIONS("odd status"));
    CHECK(reached == 0);
    CHECK_STATUS(sb_interceptor_remove(m, id), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "T", "act", NULL, 0, NULL), SB_OK);
    CHECK(reached == 1);
    sb_mediator_free(m);
}

/* ------------------------------------------------------------------ async */

static pthread_t decider_thread;
static sb_status async_status;

static void *answer_later(void *arg) {
    sb_call *call = arg;
    sleep_ms(5);
    sb_value *v = sb_string("from a thread");
    async_status = sb_call_answer(call, v);
    sb_value_release(v);
    return NULL;
}

static void *proceed_later(void *arg) {
    sleep_ms(5);
    async_status = sb_call_proceed(arg);
    return NULL;
}

static int pending_answer(void *u, sb_call *call) {
    (void)u;
    pthread_create(&decider_thread, NULL, answer_later, call);
    return SB_INTERCEPT_PENDING;
}

static int pending_proceed(void *u, sb_call *call) {
    (void)u;
    pthread_create(&decider_thread, NULL, proceed_later, call);
    return SB_INTERCEPT_PENDING;
}

#define STASH_MAX 1000
static sb_call *stash[STASH_MAX];
static int stashed;

/* Decides later: keeps the call for the test to decide. */
static int pending_stash(void *u, sb_call *call) {
    (void)u;
    if (stashed < STASH_MAX) stash[stashed++] = call;
    return SB_INTERCEPT_PENDING;
}

/* Decides every stashed call with an answer; counts the statuses that are `expected`. */
static int decide_stash(sb_status expected) {
    int matched = 0;
    sb_value *v = sb_int(1);
    for (int i = 0; i < stashed; i++)
        if (sb_call_answer(stash[i], v) == expected) matched++;
    sb_value_release(v);
    stashed = 0;
    return matched;
}

static sb_status second_status;

/* Decides twice. */
static int decide_twice(void *u, sb_call *call) {
    (void)u;
    sb_value *v = sb_int(9);
    decision_status = sb_call_proceed(call);
    second_status = sb_call_answer(call, v);
    sb_value_release(v);
    return SB_OK;
}

static void test_async(void) {
    sb_mediator *m = sb_mediator_new();
    uint64_t id = 0;
    sb_value *out = NULL, *entry;
    CHECK_STATUS(sb_action_register(m, "T", "act", name_of, "T.act", NULL), SB_OK);

    /* Answered from another thread a few ms later. */
    CHECK_STATUS(sb_interceptor_add(m, 0, pending_answer, NULL, NULL, &id), SB_OK);
    reached = 0;
    async_status = SB_EINVAL;
    CHECK_STATUS(sb_action_perform(m, "T", "act", NULL, 0, &out), SB_OK);
    pthread_join(decider_thread, NULL);
    CHECK(async_status == SB_OK && reached == 0);
    CHECK_STR(str_of(out), "from a thread");
    sb_value_release(out);
    CHECK_STATUS(sb_interceptor_remove(m, id), SB_OK);

    /* Proceeds from another thread: the target runs. */
    CHECK_STATUS(sb_interceptor_add(m, 0, pending_proceed, NULL, NULL, &id), SB_OK);
    async_status = SB_EINVAL;
    CHECK_STATUS(sb_action_perform(m, "T", "act", NULL, 0, &out), SB_OK);
    pthread_join(decider_thread, NULL);
    CHECK(async_status == SB_OK && reached == 1);
    CHECK_STR(str_of(out), "T.act");
    sb_value_release(out);
    CHECK_STATUS(sb_interceptor_remove(m, id), SB_OK);

    /* Never decided in time: SB_ETIMEOUT naming it; a late decision is ignored. */
    CHECK_STATUS(sb_interceptor_add(m, 0, pending_stash, NULL, NULL, &id), SB_OK);
    CHECK_STATUS(sb_interceptor_set_options(m, id, "slow", 20), SB_OK);
    reached = 0;
    stashed = 0;
    out = sb_int(0);
    CHECK_STATUS(sb_action_perform(m, "T", "act", NULL, 0, &out), SB_ETIMEOUT);
    CHECK(out == NULL && reached == 0 && stashed == 1);
    CHECK(ERROR_MENTIONS("slow"));
    CHECK(decide_stash(SB_ETIMEOUT) == 1);
    entry = routes_interceptor(m, "slow");
    CHECK(entry != NULL && int_at(entry, "ignored_decisions") == 1 && int_at(entry, "timeout_ms") == 20);
    sb_value_release(entry);
    CHECK_STATUS(sb_interceptor_remove(m, id), SB_OK);

    /* A second decision inside the function is SB_EINVAL and ignored. */
    CHECK_STATUS(sb_interceptor_add(m, 0, decide_twice, NULL, NULL, &id), SB_OK);
    CHECK_STATUS(sb_interceptor_set_options(m, id, "twice", 0), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "T", "act", NULL, 0, &out), SB_OK);
    CHECK(decision_status == SB_OK && second_status == SB_EINVAL);
    CHECK_STR(str_of(out), "T.act"); /* the first decision (proceed) holds */
    CHECK(reached == 1);
    sb_value_release(out);
    char *json = sb_routes_json(m);
    CHECK(json != NULL && strstr(json, "\"ignored_decisions\"") != NULL);
    sb_memory_free(json);
    entry = routes_interceptor(m, "twice");
    CHECK(entry != NULL && int_at(entry, "ignored_decisions") == 1);
    sb_value_release(entry);
    CHECK_STATUS(sb_interceptor_remove(m, id), SB_OK);
    sb_mediator_free(m);
}

/* An interceptor that never decides in time, 1000 times over. */
static void test_never_decides(void) {
    sb_mediator *m = sb_mediator_new();
    uint64_t id = 0;
    int timeouts = 0;
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_register(m, "T", "act", name_of, "T.act", NULL), SB_OK);
    CHECK_STATUS(sb_interceptor_add(m, 0, pending_stash, NULL, NULL, &id), SB_OK);
    CHECK_STATUS(sb_interceptor_set_options(m, id, "stuck", 1), SB_OK);
    stashed = 0;
    reached = 0;
    for (int i = 0; i < STASH_MAX; i++) {
        sb_status s = sb_action_perform(m, "T", "act", NULL, 0, &out);
        if (s == SB_ETIMEOUT && out == NULL && ERROR_MENTIONS("stuck")) timeouts++;
        else sb_value_release(out);
    }
    CHECK(timeouts == STASH_MAX);
    CHECK(stashed == STASH_MAX && reached == 0);
    CHECK_STATUS(sb_interceptor_remove(m, id), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "T", "act", NULL, 0, &out), SB_OK);
    CHECK_STR(str_of(out), "T.act");
    sb_value_release(out);
    CHECK(decide_stash(SB_ETIMEOUT) == STASH_MAX);
    sb_mediator_free(m);
}

/* ----------------------------------------------------------- cancellation */

static void *cancel_later(void *arg) {
    sleep_ms(10);
    sb_cancellation_request(arg);
    return NULL;
}

static int cancelled_seen;

/* Cancels its own call's token (userdata), then asks. */
static sb_status cancel_self(void *u, const sb_value *params, sb_value **out) {
    (void)params;
    reached++;
    if (u != NULL) sb_cancellation_request(u);
    cancelled_seen = sb_action_cancelled();
    *out = sb_int(cancelled_seen);
    return SB_OK;
}

static int call_was_cancelled;
static int stash_and_look(void *u, sb_call *call) {
    (void)u;
    call_was_cancelled = sb_call_cancelled(call);
    return pending_stash(u, call);
}

static void test_cancellation(void) {
    sb_mediator *m = sb_mediator_new();
    sb_cancellation *token = sb_cancellation_new();
    uint64_t id = 0;
    pthread_t thread;
    sb_value *out = NULL;
    sb_call_options opts = SB_CALL_OPTIONS_INIT;
    CHECK(token != NULL);
    CHECK(sb_cancellation_requested(token) == 0);
    CHECK(sb_action_cancelled() == 0); /* outside any call */
    CHECK_STATUS(sb_action_register(m, "T", "act", name_of, "T.act", NULL), SB_OK);

    /* Cancelled from another thread while an interceptor is pending (it would wait 5 s). */
    CHECK_STATUS(sb_interceptor_add(m, 0, pending_stash, NULL, NULL, &id), SB_OK);
    CHECK_STATUS(sb_interceptor_set_options(m, id, "waiter", 5000), SB_OK);
    opts.cancel = token;
    stashed = 0;
    reached = 0;
    out = sb_int(0);
    pthread_create(&thread, NULL, cancel_later, token);
    CHECK_STATUS(sb_action_perform_opts(m, "T", "act", NULL, &opts, &out), SB_ECANCELED);
    pthread_join(thread, NULL);
    CHECK(out == NULL && reached == 0 && stashed == 1);
    CHECK(sb_cancellation_requested(token) == 1);
    CHECK(stashed == 1 && sb_call_cancelled(stash[0]) == 1);
    CHECK(decide_stash(SB_ECANCELED) == 1); /* a decision after cancellation is ignored */
    CHECK_STATUS(sb_interceptor_remove(m, id), SB_OK);

    /* A token cancelled beforehand: no target runs, with or without interceptors. */
    CHECK_STATUS(sb_action_perform_opts(m, "T", "act", NULL, &opts, &out), SB_ECANCELED);
    CHECK(out == NULL && reached == 0);
    CHECK_STATUS(sb_url_open(m, "app://T/act", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .call = &opts}, &out), SB_ECANCELED);
    CHECK(out == NULL && reached == 0);
    CHECK_STATUS(sb_interceptor_add(m, 0, stash_and_look, NULL, NULL, &id), SB_OK);
    stashed = 0;
    CHECK_STATUS(sb_action_perform_opts(m, "T", "act", NULL, &opts, &out), SB_ECANCELED);
    CHECK(out == NULL && reached == 0);
    if (stashed > 0) { /* shown to the interceptor at all: it saw the cancellation */
        CHECK(call_was_cancelled == 1);
        CHECK(decide_stash(SB_ECANCELED) == 1);
    }
    CHECK_STATUS(sb_interceptor_remove(m, id), SB_OK);
    sb_cancellation_free(token);

    /* A target sees its own call's cancellation with sb_action_cancelled(). */
    token = sb_cancellation_new();
    opts.cancel = token;
    CHECK_STATUS(sb_action_register(m, "C", "self", cancel_self, token, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "C", "plain", cancel_self, NULL, NULL), SB_OK);
    cancelled_seen = -1;
    CHECK_STATUS(sb_action_perform_opts(m, "C", "self", NULL, &opts, &out), SB_OK);
    CHECK(cancelled_seen == 1 && check_int(out) == 1);
    sb_value_release(out);
    cancelled_seen = -1;
    CHECK_STATUS(sb_action_perform(m, "C", "plain", NULL, 0, &out), SB_OK); /* no token: 0 */
    CHECK(cancelled_seen == 0);
    sb_value_release(out);
    sb_cancellation_free(token);
    token = sb_cancellation_new();
    opts.cancel = token;
    cancelled_seen = -1;
    CHECK_STATUS(sb_action_perform_opts(m, "C", "plain", NULL, &opts, &out), SB_OK); /* a token nobody cancels */
    CHECK(cancelled_seen == 0);
    sb_value_release(out);
    CHECK(sb_action_cancelled() == 0);
    sb_cancellation_free(token);
    sb_mediator_free(m);
}

/* ----------------------------------------------------------------- bypass */

static int reject_all(void *u, sb_call *call) {
    (void)u;
    sb_call_reject(call, SB_EREJECTED, "gatekeeper says no");
    return SB_OK;
}

static void test_bypass(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    sb_call_options opts = SB_CALL_OPTIONS_INIT;
    opts.flags = SB_BYPASS_INTERCEPTORS;
    CHECK_STATUS(sb_action_register(m, "T", "act", name_of, "T.act", NULL), SB_OK);
    CHECK_STATUS(sb_interceptor_add(m, 0, reject_all, NULL, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "T", "act", NULL, 0, &out), SB_EREJECTED);
    CHECK(ERROR_MENTIONS("gatekeeper says no"));
    CHECK_STATUS(sb_action_perform_opts(m, "T", "act", NULL, &opts, &out), SB_OK);
    CHECK_STR(str_of(out), "T.act");
    sb_value_release(out);
    CHECK_STATUS(sb_url_open(m, "app://T/act", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .call = &opts}, &out), SB_OK);
    CHECK_STR(str_of(out), "T.act");
    sb_value_release(out);

    CHECK_STATUS(sb_interceptor_allow_bypass(m, 0), SB_OK);
    CHECK_STATUS(sb_action_perform_opts(m, "T", "act", NULL, &opts, &out), SB_EREJECTED);
    CHECK(out == NULL && ERROR_MENTIONS("gatekeeper says no"));
    CHECK_STATUS(sb_url_open(m, "app://T/act", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .call = &opts}, &out), SB_EREJECTED);
    CHECK(out == NULL);

    CHECK_STATUS(sb_interceptor_allow_bypass(m, 1), SB_OK);
    CHECK_STATUS(sb_action_perform_opts(m, "T", "act", NULL, &opts, &out), SB_OK);
    sb_value_release(out);

    /* SB_CACHE_TARGET is a known flag for the options too. */
    opts.flags = SB_CACHE_TARGET | SB_BYPASS_INTERCEPTORS;
    CHECK_STATUS(sb_action_perform_opts(m, "T", "act", NULL, &opts, &out), SB_OK);
    sb_value_release(out);
    sb_mediator_free(m);
}

/* ------------------------------------------------------------------ rules */

static int redirect_ab(void *u, sb_call *call) {
    (void)u;
    if (strcmp(sb_call_target(call), "A") == 0) sb_call_redirect(call, "B", NULL, NULL);
    else if (strcmp(sb_call_target(call), "B") == 0) sb_call_redirect(call, "A", NULL, NULL);
    return SB_OK;
}

/* Checks a NoTargetAction-style params dict (the result of an echo):
 * CTMediator's Target_<target> and Action_<action>:, the bare names, and
 * `url` only when given. */
static int degrade_params_url(const sb_value *v, const char *target, const char *action, int64_t amount,
                              const char *url) {
    char target_string[256], selector_string[256];
    snprintf(target_string, sizeof target_string, "Target_%s", target);
    snprintf(selector_string, sizeof selector_string, "Action_%s:", action);
    const sb_value *given_url = sb_dict_get(v, "url");
    return sb_value_type(v) == SB_DICT && int_at(sb_dict_get(v, "originParams"), "amount") == amount &&
           strcmp(str_of(sb_dict_get(v, "targetString")), target_string) == 0 &&
           strcmp(str_of(sb_dict_get(v, "selectorString")), selector_string) == 0 &&
           strcmp(str_of(sb_dict_get(v, "target")), target) == 0 &&
           strcmp(str_of(sb_dict_get(v, "action")), action) == 0 &&
           (url == NULL ? given_url == NULL : given_url != NULL && strcmp(str_of(given_url), url) == 0);
}

static int degrade_params(const sb_value *v, const char *target, const char *action, int64_t amount) {
    return degrade_params_url(v, target, action, amount, NULL);
}

static sb_status degrade_echo(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    *out = sb_value_retain((sb_value *)params);
    return SB_OK;
}

static void test_rules(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL, *params = sb_dict_new(), *routes = NULL;
    char json[1024], name[16];
    uint64_t id = 0;
    sb_dict_set_new(params, "amount", sb_int(5));
    CHECK_STATUS(sb_action_register(m, "Old", "show", name_of, "Old.show", NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "New", "show", name_of, "New.show", NULL), SB_OK);

    /* A URL rewrite applies to URLs only. */
    CHECK_STATUS(sb_rules_set_json(m, "[{\"from\":\"app://Old/*\",\"to\":\"app://New/$1\"}]"), SB_OK);
    CHECK_STATUS(sb_url_open(m, "app://Old/show", NULL, &out), SB_OK);
    CHECK_STR(str_of(out), "New.show");
    sb_value_release(out);
    CHECK_STATUS(sb_action_perform(m, "Old", "show", NULL, 0, &out), SB_OK);
    CHECK_STR(str_of(out), "Old.show");
    sb_value_release(out);

    /* A local rule rewrites "target/action" of every call. */
    CHECK_STATUS(sb_rules_set_json(m, "[{\"from\":\"Old/*\",\"to\":\"New/$1\"}]"), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "Old", "show", NULL, 0, &out), SB_OK);
    CHECK_STR(str_of(out), "New.show");
    sb_value_release(out);
    CHECK_STATUS(sb_url_open(m, "app://Old/show", NULL, &out), SB_OK);
    CHECK_STR(str_of(out), "New.show");
    sb_value_release(out);

    /* Bad JSON or a bad rule: SB_EINVAL, and the old rules still apply. */
    CHECK_STATUS(sb_rules_set_json(m, "[{\"from\":"), SB_EINVAL);
    CHECK_STATUS(sb_rules_set_json(m, "{}"), SB_EINVAL);
    CHECK_STATUS(sb_rules_set_json(m, "[{\"from\":\"X/*\"}]"), SB_EINVAL);
    CHECK_STATUS(sb_rules_set_json(m, "[{\"from\":\"X/*\",\"to\":\"Y/$1\"},{\"bogus\":1}]"), SB_EINVAL);
    CHECK(ERROR_MENTIONS("2")); /* the rule's number */
    CHECK_STATUS(sb_rules_set_json(m, "[{\"from\":\"X/*\",\"to\":\"Y/$2\"}]"), SB_EINVAL); /* only one star */
    CHECK_STATUS(sb_action_perform(m, "Old", "show", NULL, 0, &out), SB_OK);
    CHECK_STR(str_of(out), "New.show");
    sb_value_release(out);

    /* A rule that matches its own output: a redirect loop. */
    CHECK_STATUS(sb_action_register(m, "A", "x", name_of, "A.x", NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "B", "x", name_of, "B.x", NULL), SB_OK);
    CHECK_STATUS(sb_rules_set_json(m, "[{\"from\":\"A/*\",\"to\":\"A/$1\"}]"), SB_OK);
    reached = 0;
    CHECK_STATUS(sb_action_perform(m, "A", "x", NULL, 0, &out), SB_EREJECTED);
    CHECK(out == NULL && reached == 0 && ERROR_MENTIONS("redirect loop"));

    /* SB_MAX_REDIRECTS redirects are allowed, one more is a loop: R0 -> R1 -> ... */
    for (int hops = SB_MAX_REDIRECTS; hops <= SB_MAX_REDIRECTS + 1; hops++) {
        size_t len = 0;
        json[len++] = '[';
        for (int i = 0; i < hops; i++)
            len += (size_t)snprintf(json + len, sizeof json - len, "%s{\"from\":\"R%d/*\",\"to\":\"R%d/$1\"}",
                                    i ? "," : "", i, i + 1);
        snprintf(json + len, sizeof json - len, "]");
        snprintf(name, sizeof name, "R%d", hops);
        CHECK_STATUS(sb_action_register(m, name, "x", name_of, "last", NULL), SB_OK);
        CHECK_STATUS(sb_rules_set_json(m, json), SB_OK);
        sb_status s = sb_action_perform(m, "R0", "x", NULL, 0, &out);
        if (hops == SB_MAX_REDIRECTS) {
            CHECK(s == SB_OK);
            CHECK_STR(str_of(out), "last");
            sb_value_release(out);
        } else {
            CHECK(s == SB_EREJECTED && ERROR_MENTIONS("redirect loop"));
        }
    }

    /* "[]" removes the rules. */
    CHECK_STATUS(sb_rules_set_json(m, "[]"), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "Old", "show", NULL, 0, &out), SB_OK);
    CHECK_STR(str_of(out), "Old.show");
    sb_value_release(out);
    CHECK_STATUS(sb_url_open(m, "app://Old/show", NULL, &out), SB_OK);
    CHECK_STR(str_of(out), "Old.show");
    sb_value_release(out);
    CHECK_STATUS(sb_action_perform(m, "A", "x", NULL, 0, &out), SB_OK);
    CHECK_STR(str_of(out), "A.x");
    sb_value_release(out);
    CHECK_STATUS(sb_routes(m, &routes), SB_OK);
    CHECK(sb_value_type(sb_dict_get(routes, "rules")) == SB_ARRAY && sb_value_count(sb_dict_get(routes, "rules")) == 0);
    sb_value_release(routes);

    /* Two interceptors' redirects in a circle: a redirect loop too. */
    CHECK_STATUS(sb_interceptor_add(m, 0, redirect_ab, NULL, NULL, &id), SB_OK);
    reached = 0;
    CHECK_STATUS(sb_action_perform(m, "A", "x", NULL, 0, &out), SB_EREJECTED);
    CHECK(out == NULL && reached == 0 && ERROR_MENTIONS("redirect loop"));
    CHECK_STATUS(sb_interceptor_remove(m, id), SB_OK);

    /* A degrade rule: Web.response answers a missing Pay.charge. */
    CHECK_STATUS(sb_action_register(m, "Web", "response", degrade_echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_rules_set_json(m, "[{\"target\":\"Pay\",\"action\":\"*\",\"degrade\":\"Web\"}]"), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "Pay", "charge", params, 0, &out), SB_OK);
    CHECK(degrade_params(out, "Pay", "charge", 5));
    sb_value_release(out);
    CHECK_STATUS(sb_url_open(m, "app://Pay/charge", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .params = params}, &out), SB_OK);
    CHECK(degrade_params_url(out, "Pay", "charge", 5, "app://Pay/charge"));
    sb_value_release(out);
    CHECK_STATUS(sb_action_perform(m, "Shop", "charge", params, 0, &out), SB_ENOTARGET); /* not matched */
    CHECK(out == NULL);
    CHECK_STATUS(sb_rules_set_json(m, "[{\"target\":\"Pay\",\"action\":\"*\",\"degrade\":\"Web\","
                                      "\"degrade_action\":\"other\"}]"), SB_OK);
    CHECK_STATUS(sb_action_register(m, "Web", "other", name_of, "Web.other", NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "Pay", "charge", params, 0, &out), SB_OK);
    CHECK_STR(str_of(out), "Web.other");
    sb_value_release(out);
    CHECK_STATUS(sb_rules_set_json(m, "[]"), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "Pay", "charge", params, 0, &out), SB_ENOTARGET);

    /* The degrade handler answers what nothing else answers. */
    freed = 0;
    CHECK_STATUS(sb_degrade_handler_set(m, degrade_echo, NULL, count_free), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "Missing", "go", params, 0, &out), SB_OK);
    CHECK(degrade_params(out, "Missing", "go", 5));
    sb_value_release(out);
    CHECK_STATUS(sb_url_open(m, "app://Gone/away", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .params = params}, &out), SB_OK);
    CHECK(degrade_params_url(out, "Gone", "away", 5, "app://Gone/away"));
    sb_value_release(out);
    CHECK_STATUS(sb_degrade_handler_set(m, NULL, NULL, NULL), SB_OK);
    CHECK(freed == 1);
    CHECK_STATUS(sb_action_perform(m, "Missing", "go", params, 0, &out), SB_ENOTARGET);
    CHECK(out == NULL);

    sb_value_release(params);
    sb_mediator_free(m);
}

/* -------------------------------------------------------------- observers */

#define EVENTS_MAX 8
static struct {
    int version;
    sb_call_phase phase;
    char target[32], action[32], url[64], message[256];
    char tags[64]; /* the tags joined by "," */
    size_t tag_count;
    sb_status status;
    uint64_t duration_ns;
    int has_result, has_params, has_message;
} events[EVENTS_MAX];
static int event_count;

static void observe(void *u, const sb_call_event *e) {
    (void)u;
    if (event_count >= EVENTS_MAX) {
        event_count++;
        return;
    }
    events[event_count].version = e->version;
    events[event_count].phase = e->phase;
    /* Tags came with version 1, so every event has them. */
    events[event_count].tag_count = e->tag_count;
    events[event_count].tags[0] = '\0';
    for (size_t i = 0; i < e->tag_count; i++) {
        char *joined = events[event_count].tags;
        size_t used = strlen(joined);
        snprintf(joined + used, sizeof events[0].tags - used, "%s%s", i > 0 ? "," : "", e->tags[i]);
    }
    copy_str(events[event_count].target, sizeof events[0].target, e->target);
    copy_str(events[event_count].action, sizeof events[0].action, e->action);
    copy_str(events[event_count].url, sizeof events[0].url, e->url);
    copy_str(events[event_count].message, sizeof events[0].message, e->message);
    events[event_count].has_message = e->message != NULL;
    events[event_count].status = e->status;
    events[event_count].duration_ns = e->duration_ns;
    events[event_count].has_result = e->result != NULL;
    events[event_count].has_params = e->params != NULL;
    event_count++;
}

static void ignore_done(void *userdata, sb_status status, sb_value *result) {
    (void)userdata;
    (void)status;
    sb_value_release(result);
}

static void test_observers(void) {
    sb_mediator *m = sb_mediator_new();
    uint64_t id = 0;
    sb_value *out = NULL;
    freed = 0;
    CHECK_STATUS(sb_action_register(m, "T", "act", name_of, "T.act", NULL), SB_OK);
    CHECK_STATUS(sb_observer_add(m, observe, NULL, count_free, &id), SB_OK);

    event_count = 0;
    CHECK_STATUS(sb_action_perform(m, "T", "act", NULL, 0, &out), SB_OK);
    sb_value_release(out);
    CHECK(event_count == 2);
    CHECK(events[0].phase == SB_CALL_START && events[1].phase == SB_CALL_END);
    CHECK_STR(events[0].target, "T");
    CHECK_STR(events[0].action, "act");
    CHECK_STR(events[0].url, "(null)");
    CHECK(!events[0].has_result);
    CHECK_STR(events[1].target, "T");
    CHECK_STR(events[1].action, "act");
    CHECK(events[1].status == SB_OK && !events[1].has_message);
    CHECK(events[1].duration_ns > 0 && events[1].duration_ns < 10ull * 1000 * 1000 * 1000);
    CHECK(events[1].has_result && events[1].has_params);
    CHECK(events[0].version == SB_CALL_EVENT_VERSION && events[1].version == SB_CALL_EVENT_VERSION);
    CHECK(events[0].tag_count == 0 && events[1].tag_count == 0);

    /* The caller's tags reach the observers, at start and at end, for
     * local and URL calls, and for a call that fails. */
    const char *const tags[] = {"checkout", "beta"};
    sb_call_options tagged = SB_CALL_OPTIONS_INIT;
    tagged.tags = tags;
    tagged.tag_count = 2;
    event_count = 0;
    CHECK_STATUS(sb_action_perform_opts(m, "T", "act", NULL, &tagged, &out), SB_OK);
    sb_value_release(out);
    CHECK(event_count == 2);
    CHECK(events[0].phase == SB_CALL_START && events[0].tag_count == 2);
    CHECK_STR(events[0].tags, "checkout,beta");
    CHECK(events[1].phase == SB_CALL_END && events[1].tag_count == 2);
    CHECK_STR(events[1].tags, "checkout,beta");
    event_count = 0;
    CHECK_STATUS(sb_action_perform_opts(m, "Nobody", "act", NULL, &tagged, &out), SB_ENOTARGET);
    CHECK(event_count == 2 && events[1].status == SB_ENOTARGET);
    CHECK_STR(events[0].tags, "checkout,beta");
    CHECK_STR(events[1].tags, "checkout,beta");
    /* An asynchronous caller's tags too. */
    event_count = 0;
    CHECK_STATUS(sb_action_perform_async(m, "T", "act", NULL, &tagged, ignore_done, NULL), SB_OK);
    CHECK(event_count == 2);
    CHECK_STR(events[0].tags, "checkout,beta");
    CHECK_STR(events[1].tags, "checkout,beta");

    /* A failed call. */
    event_count = 0;
    CHECK_STATUS(sb_action_perform(m, "Nobody", "act", NULL, 0, &out), SB_ENOTARGET);
    CHECK(event_count == 2);
    CHECK(events[0].phase == SB_CALL_START && events[1].phase == SB_CALL_END);
    CHECK_STR(events[1].target, "Nobody");
    CHECK(events[1].status == SB_ENOTARGET && !events[1].has_result);
    CHECK(events[1].has_message && events[1].message[0] != '\0');

    /* A URL call carries its URL. */
    event_count = 0;
    CHECK_STATUS(sb_url_open(m, "app://T/act?k=v", NULL, &out), SB_OK);
    sb_value_release(out);
    CHECK(event_count == 2);
    CHECK_STR(events[0].url, "app://T/act?k=v");
    CHECK_STR(events[1].url, "app://T/act?k=v");
    CHECK_STR(events[1].target, "T");
    CHECK(events[1].status == SB_OK);

    /* Removed: no more events; free_userdata once. */
    CHECK_STATUS(sb_observer_remove(m, id), SB_OK);
    CHECK(freed == 1);
    CHECK(sb_observer_remove(m, id) != SB_OK);
    event_count = 0;
    CHECK_STATUS(sb_action_perform(m, "T", "act", NULL, 0, &out), SB_OK);
    sb_value_release(out);
    CHECK(event_count == 0);
    CHECK(freed == 1);
    sb_mediator_free(m);
    CHECK(freed == 1);
}

/* ------------------------------------------------------------ concurrency */

#define WORKERS 4
#define CALLS 20000

static sb_mediator *shared_m;
static pthread_mutex_t counters = PTHREAD_MUTEX_INITIALIZER;
static int failures, workers_done, intercepted, churn_freed;

static void add_to(int *counter, int n) {
    pthread_mutex_lock(&counters);
    *counter += n;
    pthread_mutex_unlock(&counters);
}

static int read_counter(const int *counter) {
    pthread_mutex_lock(&counters);
    int value = *counter;
    pthread_mutex_unlock(&counters);
    return value;
}

static void churn_free(void *u) {
    (void)u;
    add_to(&churn_freed, 1);
}

static int count_proceed(void *u, sb_call *call) {
    (void)u;
    add_to(&intercepted, 1);
    return sb_call_proceed(call) == SB_OK ? SB_OK : SB_EINVAL;
}

static sb_status twice(void *u, const sb_value *params, sb_value **out) {
    int64_t n = 0;
    (void)u;
    if (sb_value_get_int(sb_dict_get(params, "n"), &n) != SB_OK) return SB_EINVAL;
    *out = sb_int(2 * n);
    return SB_OK;
}

static void *worker(void *arg) {
    long id = (long)arg;
    sb_value *params = sb_dict_new();
    for (int64_t i = 0; i < CALLS; i++) {
        int64_t n = id * CALLS + i;
        sb_value *out = NULL;
        sb_dict_set_new(params, "n", sb_int(n));
        sb_status s = sb_action_perform(shared_m, "Math", "twice", params, 0, &out);
        if (s != SB_OK || check_int(out) != 2 * n) add_to(&failures, 1);
        sb_value_release(out);
    }
    sb_value_release(params);
    add_to(&workers_done, 1);
    return NULL;
}

static void test_concurrency(void) {
    pthread_t threads[WORKERS];
    int added = 0, removed_ok = 1;
    shared_m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(shared_m, "Math", "twice", twice, NULL, NULL), SB_OK);
    for (long i = 0; i < WORKERS; i++) pthread_create(&threads[i], NULL, worker, (void *)i);
    /* At least 50 rounds: under valgrind the workers may all finish before
     * this thread first looks. */
    for (int round = 0; round < 50 || read_counter(&workers_done) < WORKERS; round++) {
        uint64_t ids[3];
        for (int k = 0; k < 3; k++) {
            if (sb_interceptor_add(shared_m, k, count_proceed, NULL, churn_free, &ids[k]) != SB_OK) removed_ok = 0;
            added++;
        }
        for (int k = 0; k < 3; k++)
            if (sb_interceptor_remove(shared_m, ids[k]) != SB_OK) removed_ok = 0;
    }
    for (int i = 0; i < WORKERS; i++) pthread_join(threads[i], NULL);
    CHECK(removed_ok);
    CHECK(read_counter(&failures) == 0);
    if (read_counter(&failures)) fprintf(stderr, "%d calls failed; last error: %s\n", read_counter(&failures), sb_error_message());
    CHECK(read_counter(&churn_freed) <= added); /* never more than once each */
    CHECK(added > 0);
    /* A removed interceptor a worker may still have been using is freed when
     * a later call ends, or at the latest by sb_mediator_free. */
    sb_mediator_free(shared_m);
    CHECK(read_counter(&churn_freed) == added); /* every destructor ran, once */
    if (read_counter(&churn_freed) != added)
        fprintf(stderr, "interceptors added %d, free_userdata ran %d times\n", added, read_counter(&churn_freed));
}

/* -------------------------------------------------------------------- NULL */

static int null_results;

/* Tries every accessor and decision with NULL in the interceptor's place. */
static int null_probe(void *u, sb_call *call) {
    (void)u;
    null_results = sb_call_redirect(call, NULL, NULL, (const sb_value *)u) == SB_ETYPE; /* params not a dict */
    return SB_OK;
}

static void test_null(void) {
    sb_mediator *m = sb_mediator_new();
    uint64_t id = 0;
    sb_value *v = sb_int(1), *out = NULL;
    static const char *const one_tag[] = {"t"};
    sb_call_options opts = SB_CALL_OPTIONS_INIT;
    CHECK_STATUS(sb_action_register(m, "T", "act", name_of, "T.act", NULL), SB_OK);

    freed = 0;
    CHECK_STATUS(sb_interceptor_add(NULL, 0, log_name, "x", count_free, &id), SB_EINVAL);
    CHECK(freed == 1);
    CHECK_STATUS(sb_interceptor_add(m, 0, NULL, "x", count_free, &id), SB_EINVAL);
    CHECK(freed == 2);
    CHECK_STATUS(sb_interceptor_remove(NULL, 1), SB_EINVAL);
    CHECK_STATUS(sb_interceptor_set_options(NULL, 1, "x", 0), SB_EINVAL);
    CHECK_STATUS(sb_interceptor_add(m, 0, log_name, "", NULL, &id), SB_OK);
    CHECK_STATUS(sb_interceptor_set_options(m, id, "", 0), SB_EINVAL);
    CHECK_STATUS(sb_interceptor_set_options(m, id + 1000, "x", 0), SB_ENOTFOUND);
    {
        sb_status s = sb_interceptor_set_options(m, id, NULL, 0);
        CHECK(s == SB_OK || s == SB_EINVAL); /* NULL name: undocumented, must not crash */
    }
    CHECK_STATUS(sb_interceptor_remove(m, id), SB_OK);

    CHECK(sb_call_target(NULL) == NULL);
    CHECK(sb_call_action(NULL) == NULL);
    CHECK(sb_call_url(NULL) == NULL);
    CHECK(sb_call_params(NULL) == NULL);
    CHECK(sb_call_tag_count(NULL) == 0);
    CHECK(sb_call_tag(NULL, 0) == NULL);
    CHECK(sb_call_cancelled(NULL) == 0);
    CHECK(sb_call_interceptor(NULL) == NULL);
    CHECK_STATUS(sb_call_proceed(NULL), SB_EINVAL);
    CHECK_STATUS(sb_call_redirect(NULL, "T", "act", NULL), SB_EINVAL);
    CHECK_STATUS(sb_call_reject(NULL, SB_EREJECTED, "x"), SB_EINVAL);
    CHECK_STATUS(sb_call_answer(NULL, v), SB_EINVAL);
    CHECK_STATUS(sb_call_answer(NULL, NULL), SB_EINVAL);

    /* Redirect params that are not a dict are refused; the call goes on. */
    CHECK_STATUS(sb_interceptor_add(m, 0, null_probe, v, NULL, &id), SB_OK);
    null_results = 0;
    CHECK_STATUS(sb_action_perform(m, "T", "act", NULL, 0, &out), SB_OK);
    CHECK(null_results == 1);
    CHECK_STR(str_of(out), "T.act");
    sb_value_release(out);
    CHECK_STATUS(sb_interceptor_remove(m, id), SB_OK);

    CHECK_STATUS(sb_action_perform_opts(NULL, "T", "act", NULL, NULL, &out), SB_EINVAL);
    CHECK(out == NULL);
    CHECK_STATUS(sb_action_perform_opts(m, NULL, "act", NULL, NULL, &out), SB_EINVAL);
    CHECK_STATUS(sb_action_perform_opts(m, "T", NULL, NULL, NULL, &out), SB_EINVAL);
    CHECK_STATUS(sb_action_perform_opts(m, "T", "act", v, NULL, &out), SB_ETYPE); /* params not a dict */
    CHECK_STATUS(sb_action_perform_opts(m, "T", "act", NULL, NULL, &out), SB_OK); /* no options */
    CHECK_STR(str_of(out), "T.act");
    sb_value_release(out);
    CHECK_STATUS(sb_action_perform_opts(m, "T", "act", NULL, NULL, NULL), SB_OK); /* out may be NULL */
    opts.flags = 0x100;
    CHECK_STATUS(sb_action_perform_opts(m, "T", "act", NULL, &opts, &out), SB_EINVAL);
    CHECK(out == NULL);
    /* Versions (see "Versioned structs"): below 1 or newer than the library. */
    int refused_versions[] = {7, 0, -1};
    for (size_t i = 0; i < sizeof refused_versions / sizeof refused_versions[0]; i++) {
        sb_call_options versioned = SB_CALL_OPTIONS_INIT;
        versioned.version = refused_versions[i];
        out = sb_null();
        CHECK_STATUS(sb_action_perform_opts(m, "T", "act", NULL, &versioned, &out), SB_EINVAL);
        CHECK(out == NULL);
        char expected[128];
        snprintf(expected, sizeof expected, refused_versions[i] > 0
                 ? "sb_action_perform_opts: sb_call_options version %d is newer than this library (2)"
                 : "sb_action_perform_opts: sb_call_options version %d is not a version", refused_versions[i]);
        CHECK(strncmp(sb_error_message(), expected, strlen(expected)) == 0);
    }
    opts.flags = 8u; /* SB_WITH_TIMEOUT before 1.0: an unknown flag now */
    CHECK_STATUS(sb_action_perform_opts(m, "T", "act", NULL, &opts, &out), SB_EINVAL);
    CHECK(ERROR_MENTIONS("unknown flags 8"));
    CHECK_STATUS(sb_url_open(m, "app://T/act", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .call = &opts}, &out), SB_EINVAL);
    opts.flags = 0;
    opts.tag_count = 2;
    opts.tags = NULL;
    CHECK_STATUS(sb_action_perform_opts(m, "T", "act", NULL, &opts, &out), SB_EINVAL);
    CHECK_STATUS(sb_url_open(m, "app://T/act", &(sb_url_options){.version = SB_URL_OPTIONS_VERSION, .call = &opts}, &out), SB_EINVAL);
    /* A count that size_t holds but no array does (2^63, SIZE_MAX) is
     * refused, not taken for "no tags" (found by a hostile pass). */
    opts.tag_count = (size_t)1 << 63;
    CHECK_STATUS(sb_action_perform_opts(m, "T", "act", NULL, &opts, &out), SB_EINVAL);
    opts.tag_count = (size_t)-1;
    opts.tags = one_tag;
    CHECK_STATUS(sb_action_perform_opts(m, "T", "act", NULL, &opts, &out), SB_EINVAL);
    CHECK(ERROR_MENTIONS("at most 65536"));
    {   /* Tag text is bounded in all: 64 KiB, checked before anything is copied. */
        static char big[40000];
        memset(big, 'x', sizeof big - 1);
        const char *two_big[] = {big, big};
        opts.tags = two_big;
        opts.tag_count = 1;
        CHECK_STATUS(sb_action_perform_opts(m, "T", "act", NULL, &opts, &out), SB_OK);
        sb_value_release(out);
        opts.tag_count = 2;
        CHECK_STATUS(sb_action_perform_opts(m, "T", "act", NULL, &opts, &out), SB_EINVAL);
        CHECK(ERROR_MENTIONS("more than 65536 bytes") && out == NULL);
    }
    robustness_row("C call options with a tag_count of 2^63 or SIZE_MAX, or tags of more than 64 KiB in all", 3,
                   "SB_EINVAL before any tag is copied; never read as \"no tags\"");
    opts.tag_count = 0;
    opts.tags = one_tag; /* tags with a count of 0: none */
    CHECK_STATUS(sb_action_perform_opts(m, "T", "act", NULL, &opts, &out), SB_OK);
    sb_value_release(out);
    CHECK_STATUS(sb_url_open(NULL, "app://T/act", NULL, &out), SB_EINVAL);
    CHECK_STATUS(sb_url_open(m, NULL, NULL, &out), SB_EINVAL);
    CHECK_STATUS(sb_url_open(m, "app://T/act", NULL, &out), SB_OK);
    sb_value_release(out);

    CHECK_STATUS(sb_interceptor_allow_bypass(NULL, 1), SB_EINVAL);
    sb_cancellation_request(NULL);
    sb_cancellation_free(NULL);
    CHECK(sb_cancellation_requested(NULL) == 0);
    CHECK(sb_action_cancelled() == 0);

    CHECK_STATUS(sb_rules_set_json(NULL, "[]"), SB_EINVAL);
    CHECK_STATUS(sb_rules_set_json(m, NULL), SB_EINVAL);

    freed = 0;
    CHECK_STATUS(sb_degrade_handler_set(NULL, degrade_echo, NULL, count_free), SB_EINVAL);
    CHECK(freed == 1);
    CHECK_STATUS(sb_observer_add(NULL, observe, NULL, count_free, &id), SB_EINVAL);
    CHECK(freed == 2);
    CHECK_STATUS(sb_observer_add(m, NULL, NULL, count_free, &id), SB_EINVAL);
    CHECK(freed == 3);
    CHECK_STATUS(sb_observer_remove(NULL, 1), SB_EINVAL);
    CHECK_STATUS(sb_observer_remove(m, 987654), SB_ENOTFOUND); /* no observer has that id */
    CHECK(sb_routes_json(NULL) == NULL);

    /* An id is optional. */
    CHECK_STATUS(sb_interceptor_add(m, 0, log_name, "", count_free, NULL), SB_OK);
    CHECK_STATUS(sb_observer_add(m, observe, NULL, count_free, NULL), SB_OK);
    event_count = 0;
    CHECK_STATUS(sb_action_perform(m, "T", "act", NULL, 0, &out), SB_OK);
    CHECK(event_count == 2);
    sb_value_release(out);
    sb_mediator_free(m);
    CHECK(freed == 5);
    sb_value_release(v);
}

/* Late and second decisions from other threads, after the interceptor
 * returned and the call was decided: the handle is a number that closes,
 * never freed memory (ASan and valgrind run this suite). */
static sb_call *kept_handle;
static int keep_and_proceed(void *u, sb_call *call) {
    (void)u;
    kept_handle = call;
    return SB_OK;
}
static int keep_pending(void *u, sb_call *call) {
    (void)u;
    __atomic_store_n(&kept_handle, call, __ATOMIC_RELEASE);
    return SB_INTERCEPT_PENDING;
}

struct racer {
    sb_call *call;
    sb_status status;
};
static void *race_answer(void *arg) {
    struct racer *r = arg;
    sb_value *v = sb_int(7);
    r->status = sb_call_answer(r->call, v);
    sb_value_release(v);
    return NULL;
}

static void *perform_in_thread(void *m) {
    sb_value *out = NULL;
    if (sb_action_perform(m, "T", "act", NULL, 0, &out) == SB_OK) sb_value_release(out);
    return NULL;
}

static void test_late_decisions(void) {
    sb_mediator *m = sb_mediator_new();
    uint64_t id = 0;
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_register(m, "T", "act", name_of, "T.act", NULL), SB_OK);

    /* Decided by the function's return: the kept handle is closed. */
    CHECK_STATUS(sb_interceptor_add(m, 0, keep_and_proceed, NULL, NULL, &id), SB_OK);
    const int rounds = 200;
    int refused = 0, blank = 0;
    for (int i = 0; i < rounds; i++) {
        CHECK_STATUS(sb_action_perform(m, "T", "act", NULL, 0, &out), SB_OK);
        sb_value_release(out);
        struct racer r = {kept_handle, SB_OK};
        pthread_t t;
        pthread_create(&t, NULL, race_answer, &r);
        pthread_join(t, NULL);
        if (r.status == SB_EINVAL) refused++;
        if (sb_call_target(kept_handle) == NULL && sb_call_tag_count(kept_handle) == 0
            && sb_value_type(sb_call_params(kept_handle)) == SB_DICT && !sb_call_cancelled(kept_handle))
            blank++;
    }
    CHECK(refused == rounds && blank == rounds);
    sb_value *seven = sb_int(7);
    CHECK_STATUS(sb_call_answer(kept_handle, seven), SB_EINVAL); /* and on this thread, with its message */
    sb_value_release(seven);
    CHECK(ERROR_MENTIONS("not an open call"));
    CHECK_STATUS(sb_interceptor_remove(m, id), SB_OK);

    /* Pending, then decided by two threads at once while the call waits on
     * a third: one wins, the other is refused; a decision after the call
     * ended finds the handle closed. */
    CHECK_STATUS(sb_interceptor_add(m, 0, keep_pending, NULL, NULL, &id), SB_OK);
    CHECK_STATUS(sb_interceptor_set_options(m, id, "kept", 5000), SB_OK);
    int one_winner = 0, late_refused = 0;
    for (int i = 0; i < rounds; i++) {
        __atomic_store_n(&kept_handle, NULL, __ATOMIC_RELEASE);
        pthread_t caller, ta, tb;
        pthread_create(&caller, NULL, perform_in_thread, m);
        sb_call *call;
        while ((call = __atomic_load_n(&kept_handle, __ATOMIC_ACQUIRE)) == NULL) sched_yield();
        struct racer a = {call, SB_OK}, b = {call, SB_OK};
        pthread_create(&ta, NULL, race_answer, &a);
        pthread_create(&tb, NULL, race_answer, &b);
        pthread_join(ta, NULL);
        pthread_join(tb, NULL);
        pthread_join(caller, NULL);
        if ((a.status == SB_OK) + (b.status == SB_OK) == 1 && (a.status == SB_EINVAL || b.status == SB_EINVAL))
            one_winner++;
        struct racer late = {call, SB_OK};
        race_answer(&late);
        if (late.status == SB_EINVAL) late_refused++;
    }
    CHECK(one_winner == rounds && late_refused == rounds);
    CHECK_STATUS(sb_interceptor_remove(m, id), SB_OK);
    sb_mediator_free(m);
    robustness_row("An interceptor's call decided again from other threads after it was decided (returned, or raced)",
                   2L * rounds, "the first decision holds; later ones SB_EINVAL, accessors NULL: handles are numbers, never freed memory");
}

int main(void) {
    test_order();
    test_ids_of_another_mediator();
    test_pass_through_as_proceed();
    test_decisions();
    test_what_it_sees();
    test_answer_checked();
    test_failing_interceptor();
    test_async();
    test_never_decides();
    test_cancellation();
    test_bypass();
    test_rules();
    test_observers();
    test_concurrency();
    test_null();
    test_late_decisions();
    return check_report("interceptors");
}
