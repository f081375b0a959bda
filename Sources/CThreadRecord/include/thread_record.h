/* The calling thread's epoch record (Concurrency/ThreadRecord.swift) in a
 * variable of the thread's own, for Swift, which has none.
 *
 * Reading it is one load from the thread's block (initial-exec), where
 * pthread_getspecific is a call into the C library and every call looks the
 * record up several times. The domain's pthread key stays: its destructor is
 * how the domain learns that a thread exited (Concurrency/Epoch.swift), and
 * the two are set together. In a process with no key left the variable stays
 * NULL, and every lookup takes the slow way (`EpochDomain.adoptRecord`). */
#ifndef SWITCHBOARD_THREAD_RECORD_H
#define SWITCHBOARD_THREAD_RECORD_H

#if defined(__GNUC__) || defined(__clang__)
#define SB__THREAD_RECORD_ATTRIBUTES __attribute__((tls_model("initial-exec"), visibility("hidden")))
#else
#define SB__THREAD_RECORD_ATTRIBUTES
#endif

extern _Thread_local void *sb__thread_record SB__THREAD_RECORD_ATTRIBUTES;

static inline void *sb__thread_record_get(void) { return sb__thread_record; }
static inline void sb__thread_record_set(void *record) { sb__thread_record = record; }

#endif
