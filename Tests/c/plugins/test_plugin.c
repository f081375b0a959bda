/* A plugin for the C tests. It links nothing of Switchboard: the sb_
 * functions come from the process that loads it. */
#include <switchboard.h>
#include <stdio.h>
#include <stdlib.h>

/* Creations and destructions of Counter states, readable through
 * Stateless.counterStats (which makes no state of its own). */
static int created, destroyed;

/* Appends a line to the file named by SB_TEST_PLUGIN_LOG, if set. */
static void log_line(const char *line) {
    const char *path = getenv("SB_TEST_PLUGIN_LOG");
    if (path == NULL) return;
    FILE *f = fopen(path, "a");
    if (f == NULL) return;
    fprintf(f, "%s\n", line);
    fclose(f);
}

__attribute__((destructor)) static void unloaded(void) { log_line("unload"); }

struct counter { long magic; int64_t next; };
#define COUNTER_MAGIC 0x5ca1ab1e

static void *counter_create(void) {
    struct counter *c = malloc(sizeof *c);
    if (c == NULL) return NULL;
    c->magic = COUNTER_MAGIC;
    c->next = 1;
    created++;
    return c;
}

static void counter_destroy(void *state) {
    struct counter *c = state;
    c->magic = 0;
    free(c);
    destroyed++;
    log_line("destroy");
}

/* Counter.next: 1, 2, 3... on one instance; a fresh instance starts at 1. */
static sb_status counter_next(void *state, const sb_value *args, sb_value **out) {
    struct counter *c = state;
    (void)args;
    if (c == NULL || c->magic != COUNTER_MAGIC) {
        sb_error_set("Counter.next: bad state");
        return SB_EACTION;
    }
    *out = sb_int(c->next++);
    return SB_OK;
}

/* Counter.add: params n -> n + 1000, after checking the state is intact. */
static sb_status counter_add(void *state, const sb_value *args, sb_value **out) {
    struct counter *c = state;
    int64_t n = 0;
    if (c == NULL || c->magic != COUNTER_MAGIC) {
        sb_error_set("Counter.add: state destroyed while in use");
        return SB_EACTION;
    }
    if (sb_value_get_int(sb_dict_get(args, "n"), &n) != SB_OK) return SB_EINVAL;
    *out = sb_int(n + 1000);
    return SB_OK;
}

/* Tally: Counter without notFound, so a missing action reaches the fallback
 * (and drops a cached instance, as CTMediator does). Its own counts. */
static int tally_created, tally_destroyed;

static void *tally_create(void) {
    struct counter *c = malloc(sizeof *c);
    if (c == NULL) return NULL;
    c->magic = COUNTER_MAGIC;
    c->next = 1;
    tally_created++;
    return c;
}

static void tally_destroy(void *state) {
    struct counter *c = state;
    c->magic = 0;
    free(c);
    tally_destroyed++;
}

static sb_status counter_stats(void *state, const sb_value *args, sb_value **out) {
    (void)state;
    (void)args;
    sb_value *d = sb_dict_new();
    sb_dict_set_new(d, "created", sb_int(created));
    sb_dict_set_new(d, "destroyed", sb_int(destroyed));
    sb_dict_set_new(d, "tallyCreated", sb_int(tally_created));
    sb_dict_set_new(d, "tallyDestroyed", sb_int(tally_destroyed));
    *out = d;
    return SB_OK;
}

static sb_status counter_not_found(void *state, const sb_value *args, sb_value **out) {
    (void)state;
    *out = sb_dict_new();
    sb_dict_set_new(*out, "notFound", sb_value_retain((sb_value *)args));
    return SB_OK;
}

static const sb_action_def counter_actions[] = {
    {"next", counter_next},
    {"add", counter_add},
    {"notFound", counter_not_found},
    {NULL, NULL},
};

/* Counter.add takes an int n; the other actions take anything. */
static const sb_contract_def counter_contracts[] = {{"add", "n: int -- what to add 1000 to\n-> int"}, {NULL, NULL}};

const sb_target_def Target_Counter = {SB_TARGET_DEF_VERSION, counter_create, counter_destroy, counter_actions,
                                      counter_contracts};

static const sb_action_def tally_actions[] = {
    {"next", counter_next},
    {NULL, NULL},
};

const sb_target_def Target_Tally = {SB_TARGET_DEF_VERSION, tally_create, tally_destroy, tally_actions, NULL};

/* Stateless: no create, no destroy; its actions see a NULL state. */
static sb_status stateless_state(void *state, const sb_value *args, sb_value **out) {
    (void)args;
    *out = sb_bool(state == NULL);
    return SB_OK;
}

static sb_status stateless_fail(void *state, const sb_value *args, sb_value **out) {
    (void)state;
    (void)args;
    (void)out;
    sb_error_set("Stateless.fail: refused on purpose");
    return SB_EREJECTED;
}

static const sb_action_def stateless_actions[] = {
    {"stateIsNull", stateless_state},
    {"fail", stateless_fail},
    {"counterStats", counter_stats},
    {NULL, NULL},
};

const sb_target_def Target_Stateless = {SB_TARGET_DEF_VERSION, NULL, NULL, stateless_actions, NULL};
