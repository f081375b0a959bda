/* Depth counts under threads: values shared by several threads are put into
 * containers and taken out again on all of them at once (the nesting lock,
 * Sources/CSwitchboard/nesting.c). Each thread puts a shared chain into its
 * own chains at, and one past, SB_MAX_DEPTH, at two depths at once, and
 * tries a cycle; and calls a missing target with shared params, whose
 * NoTargetAction puts `originParams` into a chain of its own at and past the
 * limit while the params sit in the fallback params of other calls. Every
 * refusal must be exact (its reason and the depth it names), and when the
 * threads are done the shared values must sit at depth 1 again: the limit
 * falls exactly where it fell before. Also: taking the lock when another
 * thread holds it keeps the caller's errno, as a pthread mutex does. */
#include "check.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#define WORKERS 4
#define ROUNDS 600
/* The shared chain: SHARED_LEVELS arrays. */
#define SHARED_LEVELS 60

static sb_mediator *m;
static sb_value *shared;         /* SHARED_LEVELS nested arrays */
static sb_value *shared_inner;   /* its innermost array (borrowed) */
static sb_value *origin;         /* {"n": 1, "deep": a chain of SHARED_LEVELS}: 61 levels */
static sb_value *origin_inner;   /* the innermost array of "deep" (borrowed) */
static sb_value *flat;           /* {"n": 1}: no containers inside */

static pthread_mutex_t counters = PTHREAD_MUTEX_INITIALIZER;
static int failures;

static void fail(const char *what, long id, long round) {
    pthread_mutex_lock(&counters);
    failures++;
    if (failures <= 10) fprintf(stderr, "thread %ld round %ld: %s (last error: %s)\n", id, round, what, sb_error_message());
    pthread_mutex_unlock(&counters);
}

/* A chain of `levels` arrays: a new reference to the outermost; *innermost
 * borrows the last. */
static sb_value *chain(int levels, sb_value **innermost) {
    sb_value *outer = sb_array_new(), *inner = outer;
    for (int i = 1; i < levels && outer != NULL; i++) {
        sb_value *next = sb_array_new();
        if (sb_array_append_new(inner, next) != SB_OK) {
            sb_value_release(outer);
            return NULL;
        }
        inner = next;
    }
    *innermost = inner;
    return outer;
}

/* Whether the thread's last error refuses a value nesting too deep in a
 * container `deep` levels deep, in those words. */
static int refused_as_too_deep(int deep) {
    char expected[160];
    snprintf(expected, sizeof expected,
             "the result would nest deeper than SB_MAX_DEPTH (%d): the container is already %d level%s deep",
             SB_MAX_DEPTH, deep, deep == 1 ? "" : "s");
    return strstr(sb_error_message(), expected) != NULL;
}

/* Appends `item` to the innermost of a new chain of `levels` arrays: 1 when it went in, 2
 * when it was refused as too deep, naming `levels`; 0 otherwise. */
static int try_at(sb_value *item, int levels) {
    sb_value *inner = NULL, *outer = chain(levels, &inner);
    if (outer == NULL) return 0;
    int result;
    if (sb_array_append(inner, item) == SB_OK) result = 1;
    else result = refused_as_too_deep(levels) ? 2 : 0;
    sb_value_release(outer);
    return result;
}

/* NoTargetAction: puts originParams (61 levels) into a chain of its own of
 * originParams.levels arrays, while the fallback params hold it too; answers
 * what try_at found. Params without "levels" (the flat ones) answer n. */
static sb_status fallback(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    sb_value *given = sb_dict_get(params, "originParams");
    int64_t levels = 0, n = 0;
    if (sb_value_get_int(sb_dict_get(given, "levels"), &levels) == SB_OK) {
        *out = sb_int(try_at(given, (int)levels));
        return SB_OK;
    }
    if (sb_value_get_int(sb_dict_get(given, "n"), &n) != SB_OK) return SB_EINVAL;
    *out = sb_int(n);
    return SB_OK;
}

static void *worker(void *arg) {
    long id = (long)arg;
    for (long r = 0; r < ROUNDS; r++) {
        int over = (int)((r + id) % 3) - 1; /* -1, 0, +1 around the limit */

        /* The shared chain into a chain of ours: accepted up to the limit
         * exactly, refused one past it. */
        int levels = SB_MAX_DEPTH - SHARED_LEVELS + over;
        sb_value *inner = NULL, *outer = chain(levels, &inner);
        if (outer == NULL) {
            fail("chain", id, r);
            continue;
        }
        sb_status s = sb_array_append(inner, shared);
        if (over <= 0 ? s != SB_OK : (s != SB_EINVAL || !refused_as_too_deep(levels))) fail("shared chain at the limit", id, r);
        /* Also near the top of our chain: the shared chain at two depths. */
        if (sb_array_append(outer, shared) != SB_OK) fail("shared chain at depth 2", id, r);
        /* A cycle: our chain into its own innermost array. */
        if (sb_array_append(inner, outer) != SB_EINVAL || !ERROR_MENTIONS("cycle")) fail("cycle", id, r);
        sb_value_release(outer);

        /* originParams into the fallback's own chain, while the same params
         * are in the fallback params of other threads' calls. `origin` (61
         * levels) asks for SB_MAX_DEPTH - 61 arrays: at the limit. */
        sb_value *out = NULL;
        s = sb_action_perform(m, "Missing", "deep", origin, 0, &out);
        if (s != SB_OK || check_int(out) != 1) fail("originParams at the limit", id, r);
        sb_value_release(out);
        out = NULL;
        /* Params of our own holding `origin` (62 levels), asking for
         * SB_MAX_DEPTH - 61 arrays: one past. */
        sb_value *params = sb_dict_new();
        if (sb_dict_set(params, "inner", origin) != SB_OK ||
            sb_dict_set_new(params, "levels", sb_int(SB_MAX_DEPTH - SHARED_LEVELS - 1)) != SB_OK)
            fail("params", id, r);
        s = sb_action_perform(m, "Missing", "deeper", params, 0, &out);
        if (s != SB_OK || check_int(out) != 2) fail("originParams past the limit", id, r);
        sb_value_release(out);
        out = NULL;
        sb_value_release(params);

        /* Params without containers (the shortcut of the nesting code), the
         * same dict on every thread. */
        s = sb_action_perform(m, "Missing", "flat", flat, 0, &out);
        if (s != SB_OK || check_int(out) != 1) fail("flat params", id, r);
        sb_value_release(out);
    }
    return NULL;
}

/* The shared chain into a dict of ours and out again, many times on every
 * thread: most of these find the lock taken and wait for it (FUTEX_WAIT,
 * which returns EAGAIN when it was given back meanwhile). errno, set before
 * each call, must be what it was after it. */
#define ERRNO_ROUNDS 20000
#define ERRNO_SENTINEL 1234
static long errno_changed;

static void *errno_worker(void *arg) {
    (void)arg;
    long changed = 0;
    for (int r = 0; r < ERRNO_ROUNDS; r++) {
        sb_value *d = sb_dict_new();
        errno = ERRNO_SENTINEL;
        if (sb_dict_set(d, "s", shared) != SB_OK) fail("errno round: set", 0, r);
        if (errno != ERRNO_SENTINEL) changed++;
        errno = ERRNO_SENTINEL;
        sb_value_release(d);
        if (errno != ERRNO_SENTINEL) changed++;
    }
    pthread_mutex_lock(&counters);
    errno_changed += changed;
    pthread_mutex_unlock(&counters);
    return NULL;
}

/* When nothing else holds `value` (`levels` deep, its innermost `inner`), it
 * is a root again: a chain appended to `inner` goes in up to the limit
 * exactly, and the refusal one past names depth `levels`. */
static void check_root_again(sb_value *inner, int levels) {
    sb_value *probe_inner = NULL;
    sb_value *probe = chain(SB_MAX_DEPTH - levels + 1, &probe_inner);
    CHECK_STATUS(sb_array_append(inner, probe), SB_EINVAL);
    CHECK(refused_as_too_deep(levels));
    sb_value_release(probe);
    probe = chain(SB_MAX_DEPTH - levels, &probe_inner);
    CHECK_STATUS(sb_array_append(inner, probe), SB_OK);
    sb_value_release(probe);
}

int main(void) {
    m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(m, "NoTargetAction", "response", fallback, NULL, NULL), SB_OK);
    shared = chain(SHARED_LEVELS, &shared_inner);
    origin = sb_dict_new();
    CHECK_STATUS(sb_dict_set_new(origin, "n", sb_int(1)), SB_OK);
    CHECK_STATUS(sb_dict_set_new(origin, "levels", sb_int(SB_MAX_DEPTH - SHARED_LEVELS - 1)), SB_OK);
    CHECK_STATUS(sb_dict_set_new(origin, "deep", chain(SHARED_LEVELS, &origin_inner)), SB_OK);
    flat = sb_dict_new();
    CHECK_STATUS(sb_dict_set_new(flat, "n", sb_int(1)), SB_OK);
    CHECK(shared != NULL);

    pthread_t threads[WORKERS];
    for (long i = 0; i < WORKERS; i++) pthread_create(&threads[i], NULL, worker, (void *)i);
    for (int i = 0; i < WORKERS; i++) pthread_join(threads[i], NULL);
    CHECK(failures == 0);
    if (failures) fprintf(stderr, "%d checks failed on the threads\n", failures);

    for (long i = 0; i < WORKERS; i++) pthread_create(&threads[i], NULL, errno_worker, NULL);
    for (int i = 0; i < WORKERS; i++) pthread_join(threads[i], NULL);
    CHECK(errno_changed == 0);
    if (errno_changed) fprintf(stderr, "errno changed by %ld calls that nest or release\n", errno_changed);
    robustness_row("Shared value nested and released on 4 threads at once, errno set before each call",
                   2L * WORKERS * ERRNO_ROUNDS, "errno as set after every call (waiting for the nesting lock keeps it)");

    /* Nothing else holds them now (the fallback params the C face keeps
     * hold no originParams between calls). */
    check_root_again(shared_inner, SHARED_LEVELS);
    check_root_again(origin_inner, SHARED_LEVELS + 1);
    /* The flat dict is one level: it goes under SB_MAX_DEPTH - 1 arrays. */
    sb_value *flat_inner = NULL, *flat_probe = chain(SB_MAX_DEPTH, &flat_inner);
    CHECK_STATUS(sb_array_append(flat_inner, flat), SB_EINVAL);
    CHECK(refused_as_too_deep(SB_MAX_DEPTH));
    sb_value_release(flat_probe);
    flat_probe = chain(SB_MAX_DEPTH - 1, &flat_inner);
    CHECK_STATUS(sb_array_append(flat_inner, flat), SB_OK);
    sb_value_release(flat_probe);

    robustness_row("4 threads nesting the same values at and past SB_MAX_DEPTH at once, with misses whose "
                   "NoTargetAction nests their params", (long)WORKERS * ROUNDS,
                   "every refusal exact (its reason and depth); the values at their own depth again after");
    sb_value_release(shared);
    sb_value_release(origin);
    sb_value_release(flat);
    sb_mediator_free(m);
    return check_report("nest-threads");
}
