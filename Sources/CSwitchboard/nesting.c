/* The lock behind the depth counts of nested values
 * (Sources/SwitchboardC/Values/SBValue+Nesting.swift). In C so that taking it
 * is a plain call: no lazy initialisation to check, no closure.
 *
 * Every container that goes into or leaves a container takes it (a missed
 * call's params twice), so on Linux it is a futex lock (after Drepper,
 * "Futexes Are Tricky", with a swap to give it back): one compare-and-swap
 * to take it and one swap to give it back when nobody waits, where a
 * pthread mutex costs several times that (c.miss: 134 instructions a call
 * for two pairs, now about 25).
 * A thread that finds it taken sleeps in the kernel as on a mutex, so a
 * long walk over a large value holds nobody spinning. Elsewhere: a pthread
 * mutex. */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* syscall() */
#endif
#include "switchboard_internal.h"

#if defined(__linux__)

#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

/* 0: free; 1: taken, nobody waits; 2: taken, someone may wait. */
static unsigned nesting_state;

/* Taken by another thread: mark that someone waits (2) and sleep until the
 * swap finds it free. A wake-up that finds it taken again sleeps again; a
 * FUTEX_WAIT that returns at once (the state is no longer 2, a signal)
 * just tries again. syscall() sets errno on those returns (EAGAIN, EINTR):
 * the caller's errno is kept, as a pthread mutex keeps it, so that an
 * sb_dict_set between a failed call and its perror() reports the failure. */
static void __attribute__((noinline)) nesting_lock_contended(void) {
    int saved = errno;
    while (__atomic_exchange_n(&nesting_state, 2u, __ATOMIC_ACQUIRE) != 0u)
        (void)syscall(SYS_futex, &nesting_state, FUTEX_WAIT_PRIVATE, 2u, NULL, NULL, 0);
    errno = saved;
}

void sb__nesting_lock(void) {
    unsigned expected = 0u;
    if (__atomic_compare_exchange_n(&nesting_state, &expected, 1u, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return;
    nesting_lock_contended();
}

void sb__nesting_unlock(void) {
    /* Someone may sleep (2): wake one, which takes it at 2, so that it wakes
     * the next in turn. */
    if (__atomic_exchange_n(&nesting_state, 0u, __ATOMIC_RELEASE) == 2u) {
        int saved = errno;
        (void)syscall(SYS_futex, &nesting_state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        errno = saved;
    }
}

#else

#include <pthread.h>

static pthread_mutex_t nesting_mutex = PTHREAD_MUTEX_INITIALIZER;

void sb__nesting_lock(void) { (void)pthread_mutex_lock(&nesting_mutex); }

void sb__nesting_unlock(void) { (void)pthread_mutex_unlock(&nesting_mutex); }

#endif
