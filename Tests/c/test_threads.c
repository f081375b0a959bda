/* Threads: 4 pthreads × 100,000 calls (sb_action_perform by name, cached and not,
 * sb_route_call, and a missing target NoTargetAction answers: the fallback
 * params the C face reuses are taken by one thread at a time, and each call
 * must see its own) while another thread releases the cached target and
 * churns the registry. Every result is checked; the plugin's action fails if
 * its state was destroyed under it. */
#include "check.h"

#include <pthread.h>
#include <stdint.h>

#define WORKERS 4
#define CALLS 100000

static sb_mediator *m;

/* Counters shared by the threads (C99: a mutex, not stdatomic.h). */
static pthread_mutex_t counters = PTHREAD_MUTEX_INITIALIZER;
static int failures, workers_done;

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

static sb_status twice(void *u, const sb_value *params, sb_value **out) {
    int64_t n = 0;
    (void)u;
    if (sb_value_get_int(sb_dict_get(params, "n"), &n) != SB_OK) return SB_EINVAL;
    *out = sb_int(2 * n);
    return SB_OK;
}

/* NoTargetAction: 3 × originParams.n + the digit that ends the target's name,
 * after checking the fields made from that name. */
static sb_status fallback(void *u, const sb_value *params, sb_value **out) {
    int64_t n = 0;
    char expected[64];
    (void)u;
    const char *target = sb_value_get_string(sb_dict_get(params, "target"), NULL);
    const char *target_string = sb_value_get_string(sb_dict_get(params, "targetString"), NULL);
    const char *selector = sb_value_get_string(sb_dict_get(params, "selectorString"), NULL);
    if (target == NULL || target_string == NULL || selector == NULL || strcmp(selector, "Action_twice:") != 0 ||
        sb_value_get_int(sb_dict_get(sb_dict_get(params, "originParams"), "n"), &n) != SB_OK)
        return SB_EINVAL;
    snprintf(expected, sizeof expected, "Target_%s", target);
    if (strcmp(expected, target_string) != 0) return SB_EINVAL;
    *out = sb_int(3 * n + (target[strlen(target) - 1] - '0'));
    return SB_OK;
}

static void *worker(void *arg) {
    long id = (long)arg;
    sb_route *route = NULL;
    if (sb_route_prepare(m, "Counter", "add", SB_CACHE_TARGET, &route) != SB_OK) {
        add_to(&failures, 1);
        return NULL;
    }
    sb_value *params = sb_dict_new();
    for (int64_t i = 0; i < CALLS; i++) {
        int64_t n = id * CALLS + i;
        sb_dict_set_new(params, "n", sb_int(n));
        sb_value *out = NULL;
        int64_t expected;
        sb_status s;
        char missing[16];
        snprintf(missing, sizeof missing, "Missing%ld", id);
        switch (i % 5) {
        case 0: s = sb_action_perform(m, "Counter", "add", params, SB_CACHE_TARGET, &out); expected = n + 1000; break;
        case 1: s = sb_action_perform(m, "Counter", "add", params, 0, &out); expected = n + 1000; break;
        case 2: s = sb_route_call(route, params, &out); expected = n + 1000; break;
        case 3: s = sb_action_perform(m, "Math", "twice", params, 0, &out); expected = 2 * n; break;
        default: s = sb_action_perform(m, missing, "twice", params, 0, &out); expected = 3 * n + id; break;
        }
        if (s != SB_OK || check_int(out) != expected) add_to(&failures, 1);
        sb_value_release(out);
    }
    sb_value_release(params);
    sb_route_free(route);
    add_to(&workers_done, 1);
    return NULL;
}

static void *churner(void *arg) {
    char name[32];
    long round = 0;
    (void)arg;
    while (read_counter(&workers_done) < WORKERS) {
        sb_target_evict(m, "Counter");
        snprintf(name, sizeof name, "Churn%ld", round % 32);
        sb_action_register(m, name, "x", twice, NULL, NULL);
        if (round % 2) sb_target_unregister(m, name);
        sb_action_register(m, "Math", "spare", twice, NULL, NULL);
        round++;
    }
    return NULL;
}

int main(int argc, char **argv) {
    char path[4096];
    snprintf(path, sizeof path, "%s/test_plugin.so", argc > 1 ? argv[1] : ".");
    m = sb_mediator_new();
    CHECK_STATUS(sb_plugin_load(m, path), SB_OK);
    CHECK_STATUS(sb_action_register(m, "Math", "twice", twice, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", fallback, NULL, NULL), SB_OK);

    pthread_t threads[WORKERS + 1];
    for (long i = 0; i < WORKERS; i++) pthread_create(&threads[i], NULL, worker, (void *)i);
    pthread_create(&threads[WORKERS], NULL, churner, NULL);
    for (int i = 0; i <= WORKERS; i++) pthread_join(threads[i], NULL);

    CHECK(read_counter(&failures) == 0);
    if (read_counter(&failures)) fprintf(stderr, "%d calls failed; last error: %s\n", read_counter(&failures), sb_error_message());
    sb_mediator_free(m);
    return check_report("threads");
}
