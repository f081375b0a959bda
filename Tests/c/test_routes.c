/* Prepared routes: resolution now, no fallbacks, following the registry. */
#include "check.h"

#include <stdint.h>

static int freed;
static void count_free(void *p) {
    (void)p;
    freed++;
}

static sb_status constant(void *userdata, const sb_value *p, sb_value **out) {
    (void)p;
    *out = sb_int(*(int *)userdata);
    return SB_OK;
}

static sb_status echo(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    *out = sb_value_retain((sb_value *)params);
    return SB_OK;
}

int main(void) {
    sb_mediator *m = sb_mediator_new();
    sb_route *r = NULL;
    sb_value *out = NULL;
    int one = 1, two = 2;

    CHECK_STATUS(sb_action_register(m, "T", "v", constant, &one, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "T", "echo", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "T", "notFound", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", echo, NULL, NULL), SB_OK);

    /* Preparing resolves now and never falls back. */
    CHECK_STATUS(sb_route_prepare(m, "Nobody", "v", 0, &r), SB_ENOTARGET);
    CHECK(r == NULL);
    CHECK_STATUS(sb_route_prepare(m, "T", "missing", 0, &r), SB_ENOACTION);
    CHECK_STATUS(sb_route_prepare(m, "T", "v", 0x10u, &r), SB_EINVAL);
    CHECK_STATUS(sb_route_prepare(m, "", "v", 0, &r), SB_EINVAL);
    CHECK_STATUS(sb_route_prepare(NULL, "T", "v", 0, &r), SB_EINVAL);
    CHECK_STATUS(sb_route_prepare(m, "T", "v", 0, NULL), SB_EINVAL);

    CHECK_STATUS(sb_route_prepare(m, "T", "v", 0, &r), SB_OK);
    CHECK_STATUS(sb_route_call(r, NULL, &out), SB_OK);
    CHECK(check_int(out) == 1);
    sb_value_release(out);
    CHECK_STATUS(sb_route_call(r, NULL, NULL), SB_OK);

    /* It follows the registry. */
    CHECK_STATUS(sb_target_unregister(m, "T"), SB_OK);
    CHECK_STATUS(sb_route_call(r, NULL, &out), SB_ENOTARGET);
    CHECK(out == NULL);
    CHECK_STATUS(sb_action_register(m, "T", "other", constant, &one, NULL), SB_OK);
    CHECK_STATUS(sb_route_call(r, NULL, &out), SB_ENOACTION);
    CHECK_STATUS(sb_action_register(m, "T", "v", constant, &two, NULL), SB_OK);
    CHECK_STATUS(sb_route_call(r, NULL, &out), SB_OK);
    CHECK(check_int(out) == 2);
    sb_value_release(out);

    /* Params are checked like sb_action_perform's. */
    sb_value *not_dict = sb_string("x");
    CHECK_STATUS(sb_route_call(r, not_dict, &out), SB_ETYPE);
    CHECK_STATUS(sb_route_call(NULL, NULL, &out), SB_EINVAL);
    sb_value_release(not_dict);
    sb_route_free(r);
    sb_route_free(NULL);

    /* A route keeps its mediator alive after sb_mediator_free. */
    freed = 0;
    CHECK_STATUS(sb_action_register(m, "Keep", "v", constant, &two, count_free), SB_OK);
    CHECK_STATUS(sb_route_prepare(m, "Keep", "v", 0, &r), SB_OK);
    sb_mediator_free(m);
    CHECK(freed == 0);
    CHECK_STATUS(sb_route_call(r, NULL, &out), SB_OK);
    CHECK(check_int(out) == 2);
    sb_value_release(out);
    sb_route_free(r);
    CHECK(freed == 1);
    return check_report("routes");
}
