/* Hostile: an action takes its completion, hands it to another thread that
 * completes it, and returns a value of its own at about the same moment.
 * The first answer wins (switchboard.h, sb_completion_succeed): a completer
 * told SB_OK must see its value be the call's answer, and one refused must
 * not. (The action's return looked for an early answer, then closed the id
 * in a second step: a completion in between was told SB_OK and dropped, in
 * about 3% of the rounds.) On one free core the two rarely overlap: the
 * rounds then prove little, and the line printed says so (the completer
 * wins them all). Arguments: seconds (default 2). */
#include <switchboard.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static sb_completion handed;      /* the completion of the round, for the completer */
static int picked;                /* the completer has it: the action may return */
static long completed;            /* rounds the completer finished */
static sb_status completer_status;
static int stop;
/* How long the completer waits once both start: moved after each round
 * toward the moment the action returns (longer when the completer won,
 * shorter when it lost), so that rounds gather where the two meet, however
 * fast this machine and however loaded. */
static unsigned delay = 200;

static unsigned rnd(unsigned *s) { *s = *s * 1103515245u + 12345u; return (*s >> 16) & 0x7fff; }
static void spin(unsigned n) { for (volatile unsigned i = 0; i < n; i++) {} }

static sb_status answers_too(void *u, const sb_value *p, sb_value **out) {
    (void)p;
    sb_completion c = sb_completion_take();
    __atomic_store_n(&picked, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&handed, c, __ATOMIC_RELEASE);
    /* Both threads start from here, so their steps overlap. */
    for (long i = 0; !__atomic_load_n(&picked, __ATOMIC_ACQUIRE); i++)
        if (i > 100000) sched_yield();
    spin(rnd(u) % 400);
    *out = sb_int(1);
    return SB_OK;
}

static void *completer(void *a) {
    (void)a;
    unsigned seed = 7;
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        sb_completion c = __atomic_exchange_n(&handed, 0, __ATOMIC_ACQUIRE);
        if (c == 0) {
            sched_yield();
            continue;
        }
        __atomic_store_n(&picked, 1, __ATOMIC_RELEASE);
        spin(__atomic_load_n(&delay, __ATOMIC_RELAXED) + rnd(&seed) % 64);
        completer_status = sb_completion_succeed(c, sb_int(2));
        __atomic_add_fetch(&completed, 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

static double since(const struct timespec *start) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 2;
    static unsigned seed = 1;
    sb_mediator *m = sb_mediator_new();
    sb_action_register(m, "A", "x", answers_too, &seed, NULL);
    pthread_t t;
    pthread_create(&t, NULL, completer, NULL);
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long rounds = 0, wrong = 0, won = 0;
    do {
        sb_value *out = NULL;
        sb_status s = sb_action_perform(m, "A", "x", NULL, 0, &out);
        int64_t got = -1;
        sb_value_get_int(out, &got);
        sb_value_release(out);
        rounds++;
        while (__atomic_load_n(&completed, __ATOMIC_ACQUIRE) != rounds) sched_yield();
        int64_t expected = completer_status == SB_OK ? 2 : 1;
        won += completer_status == SB_OK;
        if (completer_status == SB_OK && delay < 100000) delay += 8;
        else if (delay >= 8) delay -= 8;
        if (s != SB_OK || got != expected) {
            if (wrong++ < 5)
                fprintf(stderr, "FAIL round %ld: the completer got %s, the caller %s with %lld\n", rounds,
                        sb_status_name(completer_status), sb_status_name(s), (long long)got);
        }
    } while (since(&start) < seconds);
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    sb_mediator_free(m);
    printf("early_race: %ld rounds, the completer's answer won %ld, %ld wrong\n", rounds, won, wrong);
    return wrong != 0;
}
