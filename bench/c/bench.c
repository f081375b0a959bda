/*
 * The C benchmarks. Each case is timed against its baseline in the same
 * run: REPS repetitions, alternating case and baseline, each over ITER
 * calls; printed as one JSON object per line with the medians in ns/call.
 * scripts/bench.sh runs it and builds the table.
 *
 *   bench ITER REPS PLUGIN            all cases
 *   bench --one CASE ITER PLUGIN      one case, untimed, for callgrind:
 *                                     direct, perform, route, intercepted, build3, perform3,
 *                                     unchecked3, contract3, lookup10, lookup100k,
 *                                     miss, url, url_match10, url_match1000, url_lookup,
 *                                     now, async, deferred,
 *                                     get_hit, get_miss, loop_baseline, loop_queue,
 *                                     register, register_targets (ITER registrations)
 */
#define _POSIX_C_SOURCE 200809L
#include <switchboard.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

sb_status bench_twice(void *state, const sb_value *params, sb_value **out);
sb_status bench_sum3(void *state, const sb_value *params, sb_value **out);
/* bench/c/loop.c: the round trip of a call through an event loop. */
void bench_loop_baseline(long iterations);
void bench_loop_queue(sb_mediator *m, const sb_value *params, long iterations);

static sb_mediator *m;
static sb_mediator *intercepted; /* m's twin with one C interceptor */
static sb_route *route;
static sb_value *params1; /* {n: 21} */
static sb_value *params3; /* {a: 1, b: 2, c: 3} */
static long iterations;
static volatile int64_t sink;

static double median(double *values, int n);

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void consume(sb_value *v) {
    int64_t n = 0;
    sb_value_get_int(v, &n);
    sink += n;
    sb_value_release(v);
}

/* A direct call of the action, through a pointer the compiler cannot see through. */
static sb_status (*volatile direct_twice)(void *, const sb_value *, sb_value **) = bench_twice;

static void run_direct(void) {
    for (long i = 0; i < iterations; i++) {
        sb_value *out = NULL;
        direct_twice(NULL, params1, &out);
        consume(out);
    }
}

static void run_perform(void) {
    for (long i = 0; i < iterations; i++) {
        sb_value *out = NULL;
        sb_action_perform(m, "Bench", "twice", params1, SB_CACHE_TARGET, &out);
        consume(out);
    }
}

/* The cheapest interceptor: it lets every call go on. */
static int let_through(void *userdata, sb_call *call) {
    (void)userdata;
    (void)call;
    return SB_OK;
}

static void run_intercepted(void) {
    for (long i = 0; i < iterations; i++) {
        sb_value *out = NULL;
        sb_action_perform(intercepted, "Bench", "twice", params1, SB_CACHE_TARGET, &out);
        consume(out);
    }
}

/* A target nobody provides: NoTargetAction.response answers (a C action
 * registered on m that does nothing, so the mediator's share is measured). */
static sb_status answer_missing(void *userdata, const sb_value *params, sb_value **out) {
    (void)userdata;
    (void)params;
    *out = sb_int(1);
    return SB_OK;
}

static void run_miss(void) {
    for (long i = 0; i < iterations; i++) {
        sb_value *out = NULL;
        sb_action_perform(m, "Missing", "twice", params1, 0, &out);
        consume(out);
    }
}

/* The URL entry: A.echo hands back its params (the query's strings). */
static sb_status echo(void *userdata, const sb_value *params, sb_value **out) {
    (void)userdata;
    *out = sb_value_retain((sb_value *)params);
    return SB_OK;
}

static void run_url(void) {
    for (long i = 0; i < iterations; i++) {
        sb_value *out = NULL;
        sb_url_open(m, "app://A/echo?n=1", NULL, &out);
        sink += out != NULL;
        sb_value_release(out);
    }
}

/* Asynchronous calls (issue 21). "now" is the baseline: sb_action_perform of the
 * same work registered on m. "async": sb_action_perform_async of it (it answers at
 * once, so done runs before the call returns). "deferred": an action that
 * takes its completion, completes it and returns SB_PENDING, called with
 * sb_action_perform: the whole machinery of an answer that comes later, minus the
 * wait. */
static void run_now(void) {
    for (long i = 0; i < iterations; i++) {
        sb_value *out = NULL;
        sb_action_perform(m, "Now", "twice", params1, 0, &out);
        consume(out);
    }
}

static void consume_done(void *userdata, sb_status status, sb_value *result) {
    (void)userdata;
    (void)status;
    consume(result);
}

static void run_async(void) {
    for (long i = 0; i < iterations; i++) sb_action_perform_async(m, "Now", "twice", params1, NULL, consume_done, NULL);
}

static sb_status deferred_twice(void *userdata, const sb_value *params, sb_value **out) {
    (void)userdata;
    (void)out;
    sb_completion c = sb_completion_take();
    sb_value *result = NULL;
    bench_twice(NULL, params, &result);
    sb_completion_succeed(c, result);
    return SB_PENDING;
}

static void run_deferred(void) {
    for (long i = 0; i < iterations; i++) {
        sb_value *out = NULL;
        sb_action_perform(m, "Deferred", "twice", params1, 0, &out);
        consume(out);
    }
}

/* The round trip through an event loop (issue 40, bench/c/loop.c): a call
 * whose action completes on a worker thread, its done run on this (the
 * loop's) thread by the queue's dispatch; the baseline is the same hand-off
 * with a locked list and an eventfd each way. */
static void run_loop_baseline(void) { bench_loop_baseline(iterations); }
static void run_loop_queue(void) { bench_loop_queue(m, params1, iterations); }

/* Probing a value's kind with a getter (issue 44): "an int? else ...".
 * get_hit asks an int for its int; get_miss asks a string, which fails with
 * SB_ETYPE and leaves a message nobody reads. */
static sb_value *an_int, *a_string;

static void run_get_hit(void) {
    for (long i = 0; i < iterations; i++) {
        int64_t n = 0;
        sink += sb_value_get_int(an_int, &n) + n;
    }
}

static void run_get_miss(void) {
    for (long i = 0; i < iterations; i++) {
        int64_t n = 0;
        sink += sb_value_get_int(a_string, &n) + n;
    }
}

static void run_route(void) {
    for (long i = 0; i < iterations; i++) {
        sb_value *out = NULL;
        sb_route_call(route, params1, &out);
        consume(out);
    }
}

static sb_value *three_keys(long i) {
    sb_value *d = sb_dict_new();
    sb_dict_set_new(d, "a", sb_int(i));
    sb_dict_set_new(d, "b", sb_int(2));
    sb_dict_set_new(d, "c", sb_int(3));
    return d;
}

static void run_build_only(void) {
    for (long i = 0; i < iterations; i++) sb_value_release(three_keys(i));
}

static void run_build_and_perform(void) {
    for (long i = 0; i < iterations; i++) {
        sb_value *d = three_keys(i), *out = NULL;
        sb_action_perform(m, "Bench", "sum3", d, 0, &out);
        consume(out);
        sb_value_release(d);
    }
}

/* The same C function registered twice, with a 3-key contract and without;
 * the same 3-key params, made once. */
static void run_sum3(const char *target) {
    for (long i = 0; i < iterations; i++) {
        sb_value *out = NULL;
        sb_action_perform(m, target, "sum3", params3, 0, &out);
        consume(out);
    }
}
static void run_contract3(void) { run_sum3("Checked"); }
static void run_unchecked3(void) { run_sum3("Unchecked"); }

/* Two targets of one kind, so that the uncached one never finds an instance
 * the cached one left (a cached instance answers uncached calls too). */
static void run_stateful(const char *target, unsigned flags) {
    for (long i = 0; i < iterations; i++) {
        sb_value *out = NULL;
        sb_action_perform(m, target, "twice", params1, flags, &out);
        consume(out);
    }
}
static void run_stateful_cached(void) { run_stateful("StatefulCached", SB_CACHE_TARGET); }
static void run_stateful_uncached(void) { run_stateful("Stateful", 0); }

/* Lookup: the same registered action in a mediator with 10 targets and in
 * one with 100,000. */
static sb_mediator *small_registry, *large_registry;

static sb_mediator *registry_of(long count) {
    sb_mediator *r = sb_mediator_new();
    char name[32];
    for (long i = 0; i < count; i++) {
        snprintf(name, sizeof name, "Filler%ld", i);
        sb_action_register(r, name, "twice", bench_twice, NULL, NULL);
    }
    return r;
}

static void run_lookup(sb_mediator *r) {
    for (long i = 0; i < iterations; i++) {
        sb_value *out = NULL;
        sb_action_perform(r, "Filler7", "twice", params1, 0, &out);
        consume(out);
    }
}
static void run_lookup_small(void) { run_lookup(small_registry); }
static void run_lookup_large(void) { run_lookup(large_registry); }

/* URL patterns (issue 41): the same pattern URL opened in a mediator with
 * 10 patterns and in one with 1,000, and looked up (nothing called) in the
 * one with 10. */
static sb_mediator *few_patterns, *many_patterns;

static sb_mediator *patterns_of(long count) {
    sb_mediator *r = sb_mediator_new();
    char pattern[64];
    sb_action_register(r, "P", "echo", echo, NULL, NULL);
    for (long i = 0; i < count; i++) {
        snprintf(pattern, sizeof pattern, "app://p%ld/item/<int:id>", i);
        sb_url_pattern_add(r, pattern, "P", "echo");
    }
    return r;
}

static void run_url_match(sb_mediator *r) {
    for (long i = 0; i < iterations; i++) {
        sb_value *out = NULL;
        sb_url_open(r, "app://p7/item/42?tab=a", NULL, &out);
        sink += out != NULL;
        sb_value_release(out);
    }
}
static void run_url_match_few(void) { run_url_match(few_patterns); }
static void run_url_match_many(void) { run_url_match(many_patterns); }

static void run_url_lookup(void) {
    for (long i = 0; i < iterations; i++) {
        sb_value *out = NULL;
        sb_url_lookup(few_patterns, "app://p7/item/42?tab=a", &out);
        sink += out != NULL;
        sb_value_release(out);
    }
}
/* Registration: ITER actions registered one by one on one target of a new
 * mediator, against ITER targets with one action each (names made before,
 * so that only registering is measured; the mediator is freed in both). */
static char (*registration_names)[24];

static void make_registration_names(void) {
    registration_names = malloc((size_t)iterations * sizeof *registration_names);
    if (registration_names == NULL) exit(1);
    for (long i = 0; i < iterations; i++) snprintf(registration_names[i], sizeof *registration_names, "a%ld", i);
}

static void run_register(int one_target) {
    sb_mediator *r = sb_mediator_new();
    for (long i = 0; i < iterations; i++) {
        const char *target = one_target ? "Big" : registration_names[i];
        const char *action = one_target ? registration_names[i] : "twice";
        if (sb_action_register(r, target, action, bench_twice, NULL, NULL) != SB_OK) exit(1);
    }
    sb_mediator_free(r);
}
static void run_register_one_target(void) { run_register(1); }
static void run_register_targets(void) { run_register(0); }

/* Threads: each performs `iterations` calls (or makes them directly, to see
 * what the hardware itself gives); returns the wall time. */
static void *perform_body(void *arg) {
    (void)arg;
    for (long i = 0; i < iterations; i++) {
        sb_value *out = NULL;
        sb_action_perform(m, "Bench", "twice", params1, SB_CACHE_TARGET, &out);
        sb_value_release(out);
    }
    return NULL;
}

static void *direct_body(void *arg) {
    (void)arg;
    for (long i = 0; i < iterations; i++) {
        sb_value *out = NULL;
        direct_twice(NULL, params1, &out);
        sb_value_release(out);
    }
    return NULL;
}

static double run_threads(int count, void *(*body)(void *)) {
    pthread_t threads[8];
    double start = now_ns();
    for (int t = 0; t < count; t++) pthread_create(&threads[t], NULL, body, NULL);
    for (int t = 0; t < count; t++) pthread_join(threads[t], NULL);
    return now_ns() - start;
}

/* Throughput of 2 threads against 1, for performing and for direct calls
 * (what the hardware itself gives), interleaved in each repetition. Each
 * repetition gives a ratio; the medians of those ratios are reported, which
 * a noisy neighbour on a shared machine skews less than a ratio of medians.
 * Runs are 5x longer than the other cases' for the same reason. */
static void print_scaling(const char *id, const char *name, double *one, double *two, double *ratios, int reps,
                          long calls) {
    printf("{\"id\": \"%s\", \"case\": \"%s\", \"baseline\": \"1 thread\", \"ns\": %.2f, "
           "\"baseline_ns\": %.2f, \"ratio\": %.3f, \"unit\": \"throughput\", \"reps\": %d, \"iterations\": %ld}\n",
           id, name, 1.0 / median(two, reps), 1.0 / median(one, reps), median(ratios, reps), reps, calls);
    fflush(stdout);
}

static void measure_scaling(int reps) {
    double p1[64], p2[64], pr[64], d1[64], d2[64], dr[64];
    long saved = iterations;
    iterations *= 5;
    for (int r = 0; r < reps; r++) {
        p1[r] = (double)iterations / run_threads(1, perform_body);
        p2[r] = 2.0 * (double)iterations / run_threads(2, perform_body);
        d1[r] = (double)iterations / run_threads(1, direct_body);
        d2[r] = 2.0 * (double)iterations / run_threads(2, direct_body);
        pr[r] = p2[r] / p1[r];
        dr[r] = d2[r] / d1[r];
    }
    print_scaling("c.threads", "C 2 threads performing (throughput)", p1, p2, pr, reps, iterations);
    print_scaling("c.threads_direct", "C 2 threads calling directly (what the hardware gives)", d1, d2, dr, reps,
                  iterations);
    iterations = saved;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int n) {
    qsort(values, (size_t)n, sizeof *values, compare);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

static void report(const char *id, const char *name, const char *baseline_name, double ns, double base, int reps) {
    printf("{\"id\": \"%s\", \"case\": \"%s\", \"baseline\": \"%s\", \"ns\": %.2f, \"baseline_ns\": %.2f, "
           "\"ratio\": %.3f, \"above_ns\": %.2f, \"reps\": %d, \"iterations\": %ld}\n",
           id, name, baseline_name, ns, base, ns / base, ns - base, reps, iterations);
    fflush(stdout);
}

/* Times `run` and `baseline` alternately, REPS times each. */
static void measure(const char *id, const char *name, const char *baseline_name, void (*run)(void),
                    void (*baseline)(void), int reps) {
    double runs[64], bases[64];
    run();
    baseline(); /* warm-up */
    for (int r = 0; r < reps; r++) {
        double t0 = now_ns();
        baseline();
        double t1 = now_ns();
        run();
        double t2 = now_ns();
        bases[r] = (t1 - t0) / (double)iterations;
        runs[r] = (t2 - t1) / (double)iterations;
    }
    double ns = median(runs, reps), base = median(bases, reps);
    report(id, name, baseline_name, ns, base, reps);
    fflush(stdout);
}

static void setup(const char *plugin) {
    m = sb_mediator_new();
    if (sb_plugin_load(m, plugin) != SB_OK) {
        fprintf(stderr, "bench: %s\n", sb_error_message());
        exit(1);
    }
    params1 = sb_dict_new();
    sb_dict_set_new(params1, "n", sb_int(21));
    if (sb_route_prepare(m, "Bench", "twice", SB_CACHE_TARGET, &route) != SB_OK) exit(1);
    params3 = three_keys(1);
    an_int = sb_int(7);
    a_string = sb_string("seven");
    if (sb_action_register(m, "Unchecked", "sum3", bench_sum3, NULL, NULL) != SB_OK ||
        sb_action_register_contract(m, "Checked", "sum3", "a: int, b: int, c: int -> int", bench_sum3, NULL,
                                    NULL) != SB_OK ||
        sb_action_register(m, "NoTargetAction", "response", answer_missing, NULL, NULL) != SB_OK ||
        sb_action_register(m, "A", "echo", echo, NULL, NULL) != SB_OK ||
        sb_action_register(m, "Now", "twice", bench_twice, NULL, NULL) != SB_OK ||
        sb_action_register(m, "Deferred", "twice", deferred_twice, NULL, NULL) != SB_OK) {
        fprintf(stderr, "bench: %s\n", sb_error_message());
        exit(1);
    }
    intercepted = sb_mediator_new();
    if (sb_plugin_load(intercepted, plugin) != SB_OK ||
        sb_interceptor_add(intercepted, 0, let_through, NULL, NULL, NULL) != SB_OK) {
        fprintf(stderr, "bench: %s\n", sb_error_message());
        exit(1);
    }
}

/* The lookup cases' mediators, made only when a lookup case runs. */
static void setup_registries(void) {
    small_registry = registry_of(10);
    large_registry = registry_of(100000);
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "--one") == 0) {
        iterations = atol(argv[3]);
        setup(argv[4]);
        if (strncmp(argv[2], "lookup", 6) == 0) setup_registries();
        if (strncmp(argv[2], "url_", 4) == 0) {
            few_patterns = patterns_of(10);
            many_patterns = patterns_of(1000);
        }
        if (strncmp(argv[2], "register", 8) == 0) make_registration_names();
        static const struct {
            const char *name;
            void (*run)(void);
        } cases[] = {{"direct", run_direct}, {"perform", run_perform}, {"route", run_route},
                     {"intercepted", run_intercepted},
                     {"build3", run_build_only}, {"perform3", run_build_and_perform},
                     {"unchecked3", run_unchecked3}, {"contract3", run_contract3},
                     {"lookup10", run_lookup_small}, {"lookup100k", run_lookup_large},
                     {"miss", run_miss}, {"url", run_url},
                     {"url_match10", run_url_match_few}, {"url_match1000", run_url_match_many},
                     {"url_lookup", run_url_lookup},
                     {"now", run_now}, {"async", run_async}, {"deferred", run_deferred},
                     {"get_hit", run_get_hit}, {"get_miss", run_get_miss},
                     {"loop_baseline", run_loop_baseline}, {"loop_queue", run_loop_queue},
                     {"register", run_register_one_target}, {"register_targets", run_register_targets}};
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
            if (strcmp(argv[2], cases[i].name) == 0) {
                cases[i].run();
                return 0;
            }
        }
        fprintf(stderr, "bench: unknown case %s\n", argv[2]);
        return 2;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: bench ITER REPS PLUGIN | bench --one CASE ITER PLUGIN\n");
        return 2;
    }
    iterations = atol(argv[1]);
    int reps = atoi(argv[2]);
    if (iterations < 1 || reps < 1 || reps > 64) {
        fprintf(stderr, "bench: ITER must be positive and REPS within 1..64\n");
        return 2;
    }
    setup(argv[3]);

    measure("c.perform", "C sb_action_perform by name, cached, 1 int param -> int", "direct C function call", run_perform,
            run_direct, reps);
    measure("c.route", "C sb_route_call (prepared)", "direct C function call", run_route, run_direct, reps);
    measure("c.intercepted", "C sb_action_perform through one C interceptor", "sb_action_perform, no interceptor", run_intercepted,
            run_perform, reps);
    measure("c.dict3", "C perform building a 3-key params dict", "building the same dict alone",
            run_build_and_perform, run_build_only, reps);
    measure("c.contract", "C sb_action_perform checking a 3-key contract", "the same action without one", run_contract3,
            run_unchecked3, reps);
    measure("c.miss", "C missing target, NoTargetAction answers", "direct C function call", run_miss, run_direct,
            reps);
    measure("c.open_url", "C sb_url_open app://A/echo?n=1", "direct C function call", run_url, run_direct,
            reps);
    measure("c.perform_async", "C sb_action_perform_async, the action answers at once", "sb_action_perform of it", run_async,
            run_now, reps);
    measure("c.deferred", "C action completing its completion before returning SB_PENDING", "answering at once",
            run_deferred, run_now, reps);
    measure("c.get_miss", "C sb_value_get_int of a string (SB_ETYPE, message unread)", "of an int (SB_OK)", run_get_miss,
            run_get_hit, reps);
    {
        /* Two context switches a call: a twentieth of the iterations. */
        long saved = iterations;
        iterations = iterations / 20 + 1;
        measure("c.loop", "C round trip: done on the loop's thread through a delivery queue, the action completing on a worker",
                "the same hand-off with a locked list and an eventfd each way", run_loop_queue, run_loop_baseline, reps);
        iterations = saved;
    }
    measure("c.uncached", "C uncached target (create + destroy per call)", "cached", run_stateful_uncached,
            run_stateful_cached, reps);

    few_patterns = patterns_of(10);
    many_patterns = patterns_of(1000);
    measure("c.url_match", "C sb_url_open of a pattern URL among 1,000 patterns", "10 patterns", run_url_match_many,
            run_url_match_few, reps);
    measure("c.url_lookup", "C sb_url_lookup of that URL (nothing called)", "sb_url_open of it", run_url_lookup,
            run_url_match_few, reps);

    setup_registries();
    measure("c.lookup", "C lookup with 100,000 registered targets", "10 targets", run_lookup_large,
            run_lookup_small, reps);

    make_registration_names();
    measure("c.register", "C sb_action_register, every action on one target (per registration)",
            "one action on each of as many targets", run_register_one_target, run_register_targets, reps);
    free(registration_names);

    measure_scaling(reps);

    sb_route_free(route);
    sb_value_release(params1);
    sb_value_release(params3);
    sb_value_release(an_int);
    sb_value_release(a_string);
    sb_mediator_free(few_patterns);
    sb_mediator_free(many_patterns);
    sb_mediator_free(small_registry);
    sb_mediator_free(large_registry);
    sb_mediator_free(m);
    sb_mediator_free(intercepted);
    return (int)(sink & 0);
}
