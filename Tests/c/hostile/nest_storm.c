/* Hostile: 16 threads nest shared values (and containers from inside them)
 * into parents of their own at random depths, replace them under the same
 * key (with themselves too), build parents holding them at several depths,
 * try cycles, and release parents in random order. Every admission must
 * fall exactly at SB_MAX_DEPTH; afterwards the shared values are roots. */
#include <switchboard.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long failures, ops;
static int nthreads = 16;
static long rounds = 300;

static void fail(const char *what, long a, long b) {
    if (__atomic_fetch_add(&failures, 1, __ATOMIC_SEQ_CST) < 20) fprintf(stderr, "FAIL %s (%ld, %ld) %s\n", what, a, b, sb_error_message());
}

static sb_value *chain(int levels, sb_value **innermost) {
    sb_value *outer = sb_array_new(), *inner = outer;
    for (int i = 1; i < levels; i++) {
        sb_value *next = sb_array_new();
        if (sb_array_append_new(inner, next) != SB_OK) { fail("chain", levels, i); break; }
        inner = next;
    }
    *innermost = inner;
    return outer;
}

/* Shared: S = chain of 40 whose innermost holds D twice and a dict E holding D;
 * D = [[ ]] (height 2). Height of S: 40 + 2 (E) + 2 (D) = 43? computed below. */
#define NSHARED 4
static sb_value *shared[NSHARED];   /* borrowed containers inside one shared value */
static int height[NSHARED];         /* levels from it down to its deepest leaf container */
static sb_value *top;

static int measure(const sb_value *v) {
    sb_type t = sb_value_type(v);
    if (t != SB_ARRAY && t != SB_DICT) return 0;
    int best = 0;
    size_t n = sb_value_count(v);
    for (size_t i = 0; i < n; i++) {
        sb_value *c = NULL;
        if (t == SB_ARRAY) c = sb_array_get(v, i);
        else { const char *k; sb_dict_at(v, i, &k, &c); }
        int h = measure(c);
        if (h > best) best = h;
    }
    return best + 1;
}

static unsigned rnd(unsigned *s) { *s = *s * 1103515245u + 12345u; return (*s >> 16) & 0x7fff; }

static void *worker(void *arg) {
    long id = (long)arg;
    unsigned rs = 99u + (unsigned)id * 7919u;
    sb_value *keep[8] = {0};
    for (long r = 0; r < rounds; r++) {
        int which = rnd(&rs) % NSHARED;
        sb_value *x = shared[which];
        int hx = height[which];
        int over = (int)(rnd(&rs) % 3) - 1;
        int levels = SB_MAX_DEPTH - hx + over;   /* x under `levels` containers: deepest = levels + hx */
        if (levels < 1) levels = 1;
        sb_value *inner = NULL, *outer = chain(levels, &inner);
        sb_value *holder = sb_dict_new();
        sb_status s = sb_array_append_new(inner, holder);
        /* holder sits at depth levels + 1: x under it is at levels + 2 .. levels + 1 + hx */
        int ok = levels + 1 + hx <= SB_MAX_DEPTH;
        if (s != SB_OK) { if (levels + 1 <= SB_MAX_DEPTH) fail("holder", levels, s); sb_value_release(outer); continue; }
        s = sb_dict_set(holder, "k", x);
        if ((s == SB_OK) != ok) fail("admission not at the limit (levels, height)", levels, hx);
        /* replace with itself, and with a scalar, then again */
        s = sb_dict_set(holder, "k", x);
        if ((s == SB_OK) != ok) fail("self-replacement", levels, hx);
        if (sb_dict_set_new(holder, "k", sb_int(1)) != SB_OK) fail("scalar replacement", levels, 0);
        s = sb_dict_set(holder, "k", x);
        if ((s == SB_OK) != ok) fail("re-admission", levels, hx);
        /* x at depth 2 of the same chain too */
        if (sb_array_append(outer, x) != SB_OK && 2 + hx - 1 <= SB_MAX_DEPTH) fail("depth 2", hx, 0);
        /* a cycle */
        if (sb_array_append(inner, outer) != SB_EINVAL) fail("cycle accepted", levels, 0);
        /* keep some parents across rounds, released out of order */
        int slot = (int)(rnd(&rs) % 8);
        if (keep[slot]) sb_value_release(keep[slot]);
        keep[slot] = outer;
        __atomic_fetch_add(&ops, 1, __ATOMIC_SEQ_CST);
    }
    for (int i = 0; i < 8; i++) sb_value_release(keep[i]);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc > 1) nthreads = atoi(argv[1]);
    if (argc > 2) rounds = atol(argv[2]);
    sb_value *inner = NULL;
    top = chain(40, &inner);
    sb_value *d = sb_array_new();
    sb_array_append_new(d, sb_array_new());
    sb_value *e = sb_dict_new();
    sb_dict_set(e, "d", d);
    sb_array_append(inner, d);
    sb_array_append(inner, d);
    sb_array_append_new(inner, e);
    shared[0] = top; shared[1] = inner; shared[2] = e; shared[3] = d;
    for (int i = 0; i < NSHARED; i++) height[i] = measure(shared[i]);
    sb_value_release(d);
    pthread_t th[64];
    for (long i = 0; i < nthreads; i++) pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
    /* roots again: top under exactly MAX - h(top) levels fits, one more is refused;
     * the inner ones sit where top puts them */
    for (int i = 0; i < NSHARED; i++) {
        sb_value *in = NULL, *probe = chain(SB_MAX_DEPTH - height[i], &in);
        if (sb_array_append(in, shared[i]) != SB_OK) fail("not back: at the limit refused", i, height[i]);
        sb_value_release(probe);
        probe = chain(SB_MAX_DEPTH - height[i] + 1, &in);
        if (sb_array_append(in, shared[i]) != SB_EINVAL) fail("not back: past the limit accepted", i, height[i]);
        sb_value_release(probe);
    }
    sb_value_release(top);
    printf("threads %d ops %ld failures %ld heights %d %d %d %d\n", nthreads, __atomic_load_n(&ops, __ATOMIC_SEQ_CST), __atomic_load_n(&failures, __ATOMIC_SEQ_CST),
           height[0], height[1], height[2], height[3]);
    return __atomic_load_n(&failures, __ATOMIC_SEQ_CST) ? 1 : 0;
}
