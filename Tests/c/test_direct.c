/* sb__action_enter / sb__action_leave: a call its caller runs itself. Each
 * check compares with what sb_action_perform does for the same call. */
#include "check.h"
#include "switchboard_sys.h" /* face-internal: the Makefile adds its folder for this suite only */

#include <pthread.h>
#include <string.h>

static int calls;

static sb_status twice(void *userdata, const sb_value *args, sb_value **out) {
    (void)userdata;
    int64_t n = 0;
    sb_value_get_int(sb_dict_get(args, "n"), &n);
    calls++;
    *out = sb_int(2 * n);
    return SB_OK;
}

static sb_status quiet_failure(void *userdata, const sb_value *args, sb_value **out) {
    (void)userdata, (void)args, (void)out;
    return SB_ENOTFOUND; /* no message of its own */
}


static void observe(void *userdata, const sb_call_event *event) {
    (void)userdata, (void)event;
}

/* Enters T.twice, runs fn as sb_action_perform would, leaves: the status
 * and *out of the whole call, as sb__action_leave gives them. */
static sb_status direct(sb_mediator *m, const char *target, const char *action, const sb_value *params,
                        sb_value **out) {
    sb_fn fn = NULL;
    void *userdata = NULL;
    uint64_t ticket = 0;
    if (!sb__action_enter(m, target, action, &fn, &userdata, &ticket)) return SB_PENDING; /* not entered */
    *out = NULL;
    sb_status status = fn(userdata, params, out);
    return sb__action_leave(target, action, ticket, status, out);
}

/* Another thread, inside a call of its own at the same depth as the
 * ticket's (1), tries to leave the main thread's direct call: refused,
 * whatever the level says. */
static uint64_t foreign_ticket;
static sb_status leave_foreign(void *userdata, const sb_value *args, sb_value **out) {
    (void)userdata, (void)args;
    *out = sb_int(sb__action_leave("T", "twice", foreign_ticket, SB_OK, NULL));
    return SB_OK;
}

static void *other_thread(void *m) {
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_perform(m, "L", "leave", NULL, 0, &out), SB_OK);
    int64_t status = -1;
    CHECK_STATUS(sb_value_get_int(out, &status), SB_OK);
    CHECK(status == SB_EINVAL);
    sb_value_release(out);
    return NULL;
}

/* An action that enters a direct call of itself until refused: how deep
 * direct calls nest, which must be where sb_action_perform stops. */
static sb_mediator *recursing_m;
static int deepest, depth_now;
static sb_status recurse(void *userdata, const sb_value *args, sb_value **out) {
    (void)userdata;
    depth_now++;
    if (depth_now > deepest) deepest = depth_now;
    sb_value *inner = NULL;
    sb_status status = direct(recursing_m, "R", "recurse", args, &inner);
    if (status == SB_PENDING) { /* refused: the general path says why */
        status = sb_action_perform(recursing_m, "R", "recurse", args, 0, &inner);
    }
    sb_value_release(inner);
    depth_now--;
    *out = sb_null();
    return status;
}

/* A ticket already left, left again from inside a call sb_action_perform
 * runs at the ticket's level: refused (it must not end that call). */
static uint64_t stale_ticket;
static sb_status leave_stale(void *userdata, const sb_value *args, sb_value **out) {
    (void)userdata, (void)args;
    *out = sb_int(sb__action_leave("T", "twice", stale_ticket, SB_OK, NULL));
    return SB_OK;
}

/* A thread that exits inside a direct call it never left hands its record
 * (and the record's serial) to a later thread: the old ticket, left from
 * inside a call sb_action_perform runs at its level on whichever thread got
 * the record, must be refused. Threads alive at once take every free
 * record, so one of them has the exited thread's. */
#define ADOPTERS 8
static pthread_barrier_t adopters_alive;
static int64_t adopter_status[ADOPTERS];
static uint64_t exited_ticket;
static sb_status leave_exited(void *userdata, const sb_value *args, sb_value **out) {
    (void)userdata, (void)args;
    *out = sb_int(sb__action_leave("T", "twice", exited_ticket, SB_OK, NULL));
    return SB_OK;
}

static void *exit_inside(void *m) {
    sb_fn fn = NULL;
    void *userdata = NULL;
    if (!sb__action_enter(m, "T", "twice", &fn, &userdata, &exited_ticket)) exited_ticket = 0;
    return NULL; /* no sb__action_leave */
}

static sb_mediator *adopters_m;
static void *adopt(void *slot) {
    int64_t *status = slot;
    sb_value *out = NULL;
    pthread_barrier_wait(&adopters_alive); /* every adopter has started: none has exited */
    if (sb_action_perform(adopters_m, "E", "leave", NULL, 0, &out) != SB_OK || sb_value_get_int(out, status) != SB_OK)
        *status = -1;
    sb_value_release(out);
    pthread_barrier_wait(&adopters_alive); /* none exits before all have called */
    return NULL;
}

static sb_status unregister_self(void *userdata, const sb_value *args, sb_value **out) {
    (void)args;
    CHECK_STATUS(sb_target_unregister(userdata, "U"), SB_OK);
    *out = sb_string("still here");
    return SB_OK;
}

int main(void) {
    sb_mediator *m = sb_mediator_new();
    sb_value *params = sb_dict_new(), *out = NULL;
    sb_dict_set_new(params, "n", sb_int(21));
    sb_fn fn = NULL;
    void *userdata = NULL;
    uint64_t ticket = 0;
    int marker = 0;

    /* NULL arguments: not entered. */
    CHECK(!sb__action_enter(NULL, "T", "twice", &fn, &userdata, &ticket));
    CHECK(!sb__action_enter(m, NULL, "twice", &fn, &userdata, &ticket));
    CHECK(!sb__action_enter(m, "T", "twice", NULL, &userdata, &ticket));
    CHECK(!sb__action_enter(m, "T", "twice", &fn, &userdata, NULL));
    /* Nothing registered: not entered, and nothing discovered either. */
    CHECK(!sb__action_enter(m, "T", "twice", &fn, &userdata, &ticket));

    CHECK_STATUS(sb_action_register(m, "T", "twice", twice, &marker, NULL), SB_OK);
    CHECK(sb__action_enter(m, "T", "twice", &fn, &userdata, &ticket));
    CHECK(fn == twice && userdata == &marker);
    /* A ticket that is not the innermost call: refused, nothing done. */
    CHECK_STATUS(sb__action_leave("T", "twice", ticket + 1, SB_OK, NULL), SB_EINVAL);
    CHECK_STATUS(sb__action_leave("T", "twice", 0, SB_OK, NULL), SB_EINVAL);
    CHECK_STATUS(sb__action_leave("T", "twice", ticket, SB_OK, NULL), SB_OK); /* ran nothing */
    CHECK_STATUS(sb__action_leave("T", "twice", ticket, SB_OK, NULL), SB_EINVAL); /* left already */
    /* Left already, and left again inside a general call at its level. */
    CHECK_STATUS(sb_action_register(m, "S", "stale", leave_stale, NULL, NULL), SB_OK);
    CHECK(sb__action_enter(m, "T", "twice", &fn, &userdata, &stale_ticket));
    CHECK_STATUS(sb__action_leave("T", "twice", stale_ticket, SB_OK, NULL), SB_OK);
    for (int i = 0; i < 2; i++) {
        CHECK_STATUS(sb_action_perform(m, "S", "stale", NULL, 0, &out), SB_OK);
        int64_t stale_status = -1;
        CHECK_STATUS(sb_value_get_int(out, &stale_status), SB_OK);
        CHECK(stale_status == SB_EINVAL);
        sb_value_release(out);
    }
    robustness_row("sb__action_leave given a ticket already left, from inside a call sb_action_perform runs at that ticket's level", 2,
                   "SB_EINVAL, nothing done: the running call keeps its level and what it holds");

    /* Left already, with a later direct call now at the same level: the
     * stale ticket does not end it; its own ticket does. */
    uint64_t first = 0, second = 0;
    CHECK(sb__action_enter(m, "T", "twice", &fn, &userdata, &first));
    CHECK_STATUS(sb__action_leave("T", "twice", first, SB_OK, NULL), SB_OK);
    CHECK(sb__action_enter(m, "T", "twice", &fn, &userdata, &second));
    CHECK(second != first);
    CHECK_STATUS(sb__action_leave("T", "twice", first, SB_OK, NULL), SB_EINVAL);
    CHECK_STATUS(sb__action_leave("T", "twice", second, SB_OK, NULL), SB_OK);
    CHECK_STATUS(sb__action_leave("T", "twice", second, SB_OK, NULL), SB_EINVAL);
    robustness_row("sb__action_leave given a ticket already left while a later direct call is in progress at its level", 1,
                   "SB_EINVAL, nothing done: the later call's own ticket still ends it, once");

    /* Left by a later thread that got the record of a thread which exited inside a direct call. */
    CHECK_STATUS(sb_action_register(m, "E", "leave", leave_exited, NULL, NULL), SB_OK);
    pthread_t exiting, adopters[ADOPTERS];
    CHECK(pthread_create(&exiting, NULL, exit_inside, m) == 0);
    CHECK(pthread_join(exiting, NULL) == 0);
    CHECK(exited_ticket != 0);
    adopters_m = m;
    CHECK(pthread_barrier_init(&adopters_alive, NULL, ADOPTERS) == 0);
    for (int i = 0; i < ADOPTERS; i++) CHECK(pthread_create(&adopters[i], NULL, adopt, &adopter_status[i]) == 0);
    for (int i = 0; i < ADOPTERS; i++) CHECK(pthread_join(adopters[i], NULL) == 0);
    pthread_barrier_destroy(&adopters_alive);
    for (int i = 0; i < ADOPTERS; i++) CHECK(adopter_status[i] == SB_EINVAL);
    robustness_row("sb__action_leave given the ticket of a thread that exited inside its direct call, on a later thread "
                   "that got its record", ADOPTERS, "SB_EINVAL, nothing done: the record's direct calls end with the thread");

    /* Left on another thread: refused there, still open here. */
    CHECK_STATUS(sb_action_register(m, "L", "leave", leave_foreign, NULL, NULL), SB_OK);
    CHECK(sb__action_enter(m, "T", "twice", &fn, &userdata, &foreign_ticket));
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, other_thread, m) == 0);
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK_STATUS(sb__action_leave("T", "twice", foreign_ticket, SB_OK, NULL), SB_OK);

    /* The same answer as sb_action_perform; SB_OK without a result is null. */
    CHECK_STATUS(direct(m, "T", "twice", params, &out), SB_OK);
    CHECK(sb_value_type(out) == SB_INT);
    sb_value_release(out);
    CHECK(sb__action_enter(m, "T", "twice", &fn, &userdata, &ticket));
    out = NULL;
    CHECK_STATUS(sb__action_leave("T", "twice", ticket, SB_OK, &out), SB_OK);
    CHECK(out != NULL && sb_value_type(out) == SB_NULL);
    sb_value_release(out);

    /* A failure without a message gets the one sb_action_perform gives. */
    CHECK_STATUS(sb_action_register(m, "T", "quiet", quiet_failure, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "T", "quiet", params, 0, &out), SB_ENOTFOUND);
    char general[256];
    snprintf(general, sizeof general, "%s", sb_error_message());
    CHECK_STATUS(direct(m, "T", "quiet", params, &out), SB_ENOTFOUND);
    CHECK_STR(sb_error_message(), general);
    CHECK(out == NULL);
    /* An unknown status becomes SB_EACTION, as for a called action. */
    CHECK(sb__action_enter(m, "T", "quiet", &fn, &userdata, &ticket));
    CHECK_STATUS(sb__action_leave("T", "quiet", ticket, (sb_status)1234, NULL), SB_EACTION);
    CHECK(strstr(sb_error_message(), "T.quiet failed with unknown status 1234") != NULL);

    /* What the mediator would do around the function: not entered. */
    uint64_t id = 0;
    CHECK_STATUS(sb_observer_add(m, observe, NULL, NULL, &id), SB_OK);
    CHECK(!sb__action_enter(m, "T", "twice", &fn, &userdata, &ticket));
    CHECK_STATUS(sb_observer_remove(m, id), SB_OK);
    CHECK(sb__action_enter(m, "T", "twice", &fn, &userdata, &ticket));
    CHECK_STATUS(sb__action_leave("T", "twice", ticket, SB_OK, NULL), SB_OK);
    CHECK_STATUS(sb_action_register_contract(m, "T", "typed", "n: int", twice, NULL, NULL), SB_OK);
    CHECK(!sb__action_enter(m, "T", "typed", &fn, &userdata, &ticket));
    CHECK(!sb__action_enter(m, "T", "missing", &fn, &userdata, &ticket));

    /* Nested direct calls stop where nested performs do. */
    recursing_m = m;
    CHECK_STATUS(sb_action_register(m, "R", "recurse", recurse, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_perform(m, "R", "recurse", params, 0, &out), SB_EREJECTED);
    int general_depth = deepest;
    char depth_message[512];
    snprintf(depth_message, sizeof depth_message, "%s", sb_error_message());
    deepest = 0;
    CHECK_STATUS(direct(m, "R", "recurse", params, &out), SB_EREJECTED);
    CHECK(deepest == general_depth && deepest > 1);
    CHECK_STR(sb_error_message(), depth_message);

    /* A function that unregisters its own target while it runs. */
    CHECK_STATUS(sb_action_register(m, "U", "self", unregister_self, m, NULL), SB_OK);
    CHECK_STATUS(direct(m, "U", "self", params, &out), SB_OK);
    CHECK_STR(sb_value_get_string(out, NULL), "still here");
    sb_value_release(out);
    CHECK(!sb__action_enter(m, "U", "self", &fn, &userdata, &ticket));

    sb_value_release(params);
    sb_mediator_free(m);
    return check_report("direct");
}
