/* The library's lock for short sections of C (nesting.c, queue.c).
 *
 * On Linux a futex word (after Drepper, "Futexes Are Tricky", with a swap
 * to give it back): one compare-and-swap takes it and one swap gives it
 * back while nobody waits, where a pthread mutex costs several times that.
 * A thread that finds it taken sleeps in the kernel, as on a mutex, so a
 * holder that is preempted keeps nobody spinning. Not recursive; a fork's
 * child must not use one another thread held. Elsewhere: a pthread mutex.
 *
 * Giving back a lock that someone waits on wakes that waiter after the swap,
 * so the wake may touch memory freed meanwhile by a thread that took and
 * freed it: the kernel then wakes nobody or a spurious waiter, which every
 * futex waiter tolerates (as with glibc's own mutexes).
 *
 * ThreadSanitizer follows pthread mutexes into an uninstrumented library,
 * but not atomics there: a host that runs its program under it would see
 * what it hands through a queue as a race. So when the process has the
 * sanitizer (its __tsan_acquire and __tsan_release, looked up as the
 * library loads), taking and giving tell it; elsewhere each costs a test. */
#ifndef SWITCHBOARD_LOCK_H
#define SWITCHBOARD_LOCK_H

#include <stddef.h>

/* The sanitizer's annotations, or NULL (lock.c). */
typedef void (*sb__sanitizer_annotation)(void *);
extern __attribute__((visibility("hidden"))) sb__sanitizer_annotation sb__tsan_acquire, sb__tsan_release;

#if defined(__linux__)

/* 0: free; 1: taken, nobody waits; 2: taken, someone may wait. */
typedef struct sb__lock {
    unsigned state;
} sb__lock;
#define SB__LOCK_INITIALIZER {0u}

void sb__lock_wait(sb__lock *lock);
void sb__lock_wake(sb__lock *lock);

static inline void sb__lock_init(sb__lock *lock) { lock->state = 0u; }
static inline void sb__lock_destroy(sb__lock *lock) { (void)lock; }

static inline void sb__lock_take(sb__lock *lock) {
    unsigned expected = 0u;
    if (!__atomic_compare_exchange_n(&lock->state, &expected, 1u, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        sb__lock_wait(lock);
    if (sb__tsan_acquire != NULL) sb__tsan_acquire(lock);
}

static inline void sb__lock_give(sb__lock *lock) {
    if (sb__tsan_release != NULL) sb__tsan_release(lock);
    /* Someone may sleep (2): wake one, which takes it at 2, so that it
     * wakes the next in turn. */
    if (__atomic_exchange_n(&lock->state, 0u, __ATOMIC_RELEASE) == 2u) sb__lock_wake(lock);
}

#else

#include <pthread.h>

typedef struct sb__lock {
    pthread_mutex_t mutex;
} sb__lock;
#define SB__LOCK_INITIALIZER {PTHREAD_MUTEX_INITIALIZER}

static inline void sb__lock_init(sb__lock *lock) { (void)pthread_mutex_init(&lock->mutex, NULL); }
static inline void sb__lock_destroy(sb__lock *lock) { (void)pthread_mutex_destroy(&lock->mutex); }
static inline void sb__lock_take(sb__lock *lock) { (void)pthread_mutex_lock(&lock->mutex); }
static inline void sb__lock_give(sb__lock *lock) { (void)pthread_mutex_unlock(&lock->mutex); }

#endif

#endif
