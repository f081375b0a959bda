/* Targets for the benchmarks: one plugin shared by the C and Lua benchmarks.
 * Links nothing of Switchboard. */
#define _POSIX_C_SOURCE 200809L
#include <switchboard.h>
#include <stdlib.h>

/* Bench.twice: params.n -> 2n. The action every "1 int param -> int" case
 * calls; the direct-call baselines call this same function. */
sb_status bench_twice(void *state, const sb_value *params, sb_value **out) {
    int64_t n = 0;
    (void)state;
    sb_value_get_int(sb_dict_get(params, "n"), &n);
    *out = sb_int(2 * n);
    return SB_OK;
}

/* Bench.sum3: params.a + params.b + params.c (the 3-key cases). */
sb_status bench_sum3(void *state, const sb_value *params, sb_value **out) {
    int64_t a = 0, b = 0, c = 0;
    (void)state;
    sb_value_get_int(sb_dict_get(params, "a"), &a);
    sb_value_get_int(sb_dict_get(params, "b"), &b);
    sb_value_get_int(sb_dict_get(params, "c"), &c);
    *out = sb_int(a + b + c);
    return SB_OK;
}

/* Bench.callback: calls params.cb(params.n) params.times times (C -> Lua). */
static sb_status bench_callback(void *state, const sb_value *params, sb_value **out) {
    int64_t times = 0;
    (void)state;
    sb_value_get_int(sb_dict_get(params, "times"), &times);
    const sb_value *cb = sb_dict_get(params, "cb"), *n = sb_dict_get(params, "n");
    for (int64_t i = 0; i < times; i++) {
        sb_value *r = NULL;
        sb_status s = sb_callback_call(cb, n, &r);
        sb_value_release(r);
        if (s != SB_OK) return s;
    }
    *out = sb_int(times);
    return SB_OK;
}

/* Bench.measured: calls params.cb once. Cases whose set-up dwarfs what
 * they measure are counted inside it alone (scripts/bench.sh: callgrind
 * --toggle-collect=bench_measured); noinline keeps the function to toggle. */
static __attribute__((noinline)) sb_status bench_measured(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    return sb_callback_call(sb_dict_get(params, "cb"), NULL, out);
}

/* Bench.adder: a C callback n -> n + 1 (Lua -> C). */
static sb_status add_one(void *u, const sb_value *args, sb_value **out) {
    int64_t n = 0;
    (void)u;
    sb_value_get_int(args, &n);
    *out = sb_int(n + 1);
    return SB_OK;
}

static sb_status bench_adder(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)params;
    *out = sb_callback_new(add_one, NULL, NULL);
    return SB_OK;
}

static const sb_action_def bench_actions[] = {
    {"twice", bench_twice}, {"sum3", bench_sum3}, {"callback", bench_callback}, {"adder", bench_adder},
    {"measured", bench_measured}, {NULL, NULL}};
const sb_target_def Target_Bench = {SB_TARGET_DEF_VERSION, NULL, NULL, bench_actions, NULL};

/* Stateful.twice: the same work on a target with state, for uncached
 * (create + destroy per call) versus cached; two names for one kind, so that
 * the uncached calls never meet the cached instance. */
static void *stateful_create(void) { return malloc(64); }
static void stateful_destroy(void *state) { free(state); }
static const sb_action_def stateful_actions[] = {{"twice", bench_twice}, {NULL, NULL}};
const sb_target_def Target_Stateful = {SB_TARGET_DEF_VERSION, stateful_create, stateful_destroy, stateful_actions, NULL};
const sb_target_def Target_StatefulCached = {SB_TARGET_DEF_VERSION, stateful_create, stateful_destroy, stateful_actions, NULL};
