/* Hostile: discoverers that perform missing targets from inside discovery,
 * recursively and on several threads, while other threads miss without any
 * discovery in progress. Every miss must be answered by NoTargetAction with
 * the names it was asked for; a discoverer performing the very name it is
 * asked for gets SB_EREJECTED (discovery loop). */
#include <switchboard.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sb_mediator *m, *m2;
static long failures, fallbacks, loops, discovered;
static long rounds = 2000;

static void fail(const char *what, const char *a, long b) {
    if (__atomic_fetch_add(&failures, 1, __ATOMIC_SEQ_CST) < 20) fprintf(stderr, "FAIL %s (%s, %ld) %s\n", what, a, b, sb_error_message());
}

/* Answers with the target it was asked for. */
static sb_status response(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    __atomic_fetch_add(&fallbacks, 1, __ATOMIC_SEQ_CST);
    const char *t = sb_value_get_string(sb_dict_get(params, "target"), NULL);
    *out = sb_string(t ? t : "?");
    return SB_OK;
}

static sb_status found_fn(void *u, const sb_value *p, sb_value **out) { (void)u; (void)p; *out = sb_string("found"); return SB_OK; }

/* Names "D<k>..." : performs "D<k-1>..." (a miss that discovers again), its
 * own name (a loop), a plain miss, and a miss on the other mediator. "F..." is found. */
static sb_status discover(void *u, sb_mediator *mm, const char *target) {
    (void)u;
    __atomic_fetch_add(&discovered, 1, __ATOMIC_SEQ_CST);
    if (target[0] == 'F') return sb_action_register(mm, target, "act", found_fn, NULL, NULL);
    if (target[0] != 'D' || target[1] < '1' || target[1] > '9') return SB_ENOTARGET;
    sb_value *out = NULL;
    char deeper[64];
    snprintf(deeper, sizeof deeper, "%s", target);
    deeper[1] = (char)(deeper[1] - 1);
    sb_status s;
    if (deeper[1] >= '1') {
        s = sb_action_perform(mm, deeper, "act", NULL, 0, &out);
        const char *got = sb_value_get_string(out, NULL);
        if (s != SB_OK || got == NULL || strcmp(got, deeper) != 0) fail("nested miss in discovery", deeper, s);
        sb_value_release(out); out = NULL;
    }
    s = sb_action_perform(mm, target, "act", NULL, 0, &out);
    if (s != SB_EREJECTED) fail("a discoverer performing its own name", target, s);
    else __atomic_fetch_add(&loops, 1, __ATOMIC_SEQ_CST);
    sb_value_release(out); out = NULL;
    s = sb_action_perform(mm, "Plain", "act", NULL, 0, &out);
    if (s != SB_OK || strcmp(sb_value_get_string(out, NULL) ? sb_value_get_string(out, NULL) : "", "Plain") != 0) fail("plain miss in discovery", "Plain", s);
    sb_value_release(out); out = NULL;
    s = sb_action_perform(m2, "Other", "act", NULL, 0, &out);
    if (s != SB_OK || strcmp(sb_value_get_string(out, NULL) ? sb_value_get_string(out, NULL) : "", "Other") != 0) fail("other mediator's miss in discovery", "Other", s);
    sb_value_release(out);
    return SB_ENOTARGET;
}

static void *worker(void *arg) {
    long id = (long)arg;
    char name[64];
    for (long r = 0; r < rounds; r++) {
        sb_value *out = NULL;
        sb_status s;
        if (id % 2 == 0) {
            snprintf(name, sizeof name, "D%ld_%ld_%ld", 1 + r % 5, id, r); /* fresh names: searched every time */
            s = sb_action_perform(m, name, "act", NULL, 0, &out);
        } else {
            snprintf(name, sizeof name, "X%ld", r % 7); /* misses with no discovery on this thread */
            s = sb_action_perform(m, name, "act", NULL, 0, &out);
        }
        const char *got = sb_value_get_string(out, NULL);
        if (s != SB_OK || got == NULL || strcmp(got, name) != 0) fail("outer miss", name, s);
        sb_value_release(out);
        if (r % 100 == 0) {
            snprintf(name, sizeof name, "F%ld_%ld", id, r);
            out = NULL;
            s = sb_action_perform(m, name, "act", NULL, 0, &out);
            if (s != SB_OK || strcmp(sb_value_get_string(out, NULL) ? sb_value_get_string(out, NULL) : "", "found") != 0) fail("found", name, s);
            sb_value_release(out);
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 4;
    if (argc > 2) rounds = atol(argv[2]);
    m = sb_mediator_new();
    m2 = sb_mediator_new();
    sb_action_register(m, "NoTargetAction", "response", response, NULL, NULL);
    sb_action_register(m2, "NoTargetAction", "response", response, NULL, NULL);
    sb_discoverer_add(m, discover, NULL, NULL, NULL);
    pthread_t th[64];
    for (long i = 0; i < n; i++) pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
    sb_mediator_free(m);
    sb_mediator_free(m2);
    printf("fallbacks %ld loops %ld discovered %ld failures %ld\n", __atomic_load_n(&fallbacks, __ATOMIC_SEQ_CST), __atomic_load_n(&loops, __ATOMIC_SEQ_CST),
           __atomic_load_n(&discovered, __ATOMIC_SEQ_CST), __atomic_load_n(&failures, __ATOMIC_SEQ_CST));
    return __atomic_load_n(&failures, __ATOMIC_SEQ_CST) ? 1 : 0;
}
