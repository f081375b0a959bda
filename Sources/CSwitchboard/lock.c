/* The slow half of lock.h's futex lock (sleeping and waking), and the
 * sanitizer's annotations it tells. */
#define _GNU_SOURCE /* RTLD_DEFAULT, syscall() */

#include "lock.h"

#include <dlfcn.h>
#include <string.h>

sb__sanitizer_annotation sb__tsan_acquire, sb__tsan_release;

/* Looked up, not linked: the shipped library must not need the sanitizer.
 * (A data pointer to a function pointer: memcpy, as ISO C wants.) */
__attribute__((constructor)) static void find_sanitizer_at_load(void) {
    void *acquire = dlsym(RTLD_DEFAULT, "__tsan_acquire");
    void *release = dlsym(RTLD_DEFAULT, "__tsan_release");
    if (acquire == NULL || release == NULL) return;
    memcpy(&sb__tsan_acquire, &acquire, sizeof acquire);
    memcpy(&sb__tsan_release, &release, sizeof release);
}

#if defined(__linux__)

#include <errno.h>
#include <linux/futex.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Taken by another thread: mark that someone waits (2) and sleep until the
 * swap finds it free. A wake-up that finds it taken again sleeps again; a
 * FUTEX_WAIT that returns at once (the state is no longer 2, a signal)
 * just tries again. syscall() sets errno on those returns (EAGAIN, EINTR):
 * the caller's errno is kept, as a pthread mutex keeps it, so that a call
 * between a failed one and its perror() reports the failure. */
void sb__lock_wait(sb__lock *lock) {
    int saved = errno;
    while (__atomic_exchange_n(&lock->state, 2u, __ATOMIC_ACQUIRE) != 0u)
        (void)syscall(SYS_futex, &lock->state, FUTEX_WAIT_PRIVATE, 2u, NULL, NULL, 0);
    errno = saved;
}

void sb__lock_wake(sb__lock *lock) {
    int saved = errno;
    (void)syscall(SYS_futex, &lock->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    errno = saved;
}

#endif
