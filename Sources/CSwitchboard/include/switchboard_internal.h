/*
 * Private to libswitchboard: never installed, never exported (the version
 * script keeps only sb_[a-z]* symbols). Two kinds of declarations:
 *
 * 1. Spellings for the Swift exports. Swift imports `sb_value *` as an
 *    untyped OpaquePointer and would emit it as `void *`; through these
 *    typedefs the header Swift emits names the very types of switchboard.h,
 *    so scripts/check-header.sh can compile both together and any drift
 *    between a prototype and its Swift implementation is a compile error.
 *
 * 2. Helpers implemented in C inside the library (errors.c, plugins.c,
 *    nesting.c, queue.c).
 */
#ifndef SWITCHBOARD_INTERNAL_H
#define SWITCHBOARD_INTERNAL_H

#include "switchboard.h"

typedef sb_mediator *sb_mediator_ptr;
typedef sb_value *sb_value_ptr;
typedef const sb_value *sb_value_cptr;
typedef sb_value **sb_value_out;
typedef sb_route *sb_route_ptr;
typedef sb_route **sb_route_out;
typedef void (*sb_destroy_fn)(void *);
typedef void *(*sb_create_fn)(void);
typedef sb_call *sb_call_ptr;
typedef const sb_call *sb_call_cptr;
typedef sb_cancellation *sb_cancel_ptr;
typedef const sb_cancellation *sb_cancel_cptr;

/* Sets the calling thread's last error to `length` bytes of `message`. */
void sb__error_set(const char *message, size_t length);

/* Sets the calling thread's last error to `first` followed by `second`,
 * both static text, joined only when sb_error_message() reads it (getters
 * fail cheaply when a program probes a value's kind). */
void sb__error_set_static(const char *first, const char *second);

/* Counts sb__error_set/sb_error_set/sb__error_set_static calls on this thread, so the library can
 * tell whether a failing action described its failure itself. */
unsigned long sb__error_generation(void);

/* Makes libswitchboard's own symbols global, so plugins (which link nothing)
 * resolve sb_* even when the library was loaded with RTLD_LOCAL. Idempotent. */
void sb__promote_self(void);

/* Checks that `path` is a regular file (sb__file_open's check: opened
 * without blocking, so a FIFO cannot hang it, and judged by descriptor)
 * holding a complete ELF shared object of this word size before dlopen maps
 * it (dlopen crashes on a truncated one). Returns 0, or -1 with the reason
 * in `why` (NUL-terminated). The file can still change before dlopen; this
 * guards against damage and special files, not races. */
int sb__plugin_file_check(const char *path, char *why, size_t size);

/* Calls `each` with the name of every defined data symbol starting with
 * "Target_" in the loaded object `handle`. Returns 0, or -1 if the object's
 * symbol table cannot be read. */
int sb__plugin_targets(void *handle, void (*each)(const char *name, void *context), void *context);

/* The lock that guards the depth counts of nested values (nesting.c). */
void sb__nesting_lock(void);
void sb__nesting_unlock(void);

/* The size in bytes of the data symbol at `address` in a loaded object (its
 * ELF st_size), or -1 where the platform does not say (no symbol starts
 * there, or dladdr1 is missing). A table is read only when its symbol is at
 * least as large as the table's type. */
long long sb__plugin_symbol_size(const void *address);

/* Whether the symbol at `address` is defined by the object `handle` names
 * itself, not by a library it depends on (dlsym on a handle searches
 * those too). 1 or 0. */
int sb__plugin_defines(void *handle, const void *address);

/* HMAC-SHA256 of `message` under `key` into `mac` (32 bytes) with the
 * system's OpenSSL libcrypto, loaded on first use (hmac.c). Returns 0, or -1
 * with the reason in `why` (NUL-terminated, cut to `size`) when libcrypto
 * cannot be loaded or the key is over INT_MAX bytes. Thread-safe. */
int sb__hmac_sha256(const void *key, size_t key_length, const void *message, size_t length,
                    unsigned char mac[32], char *why, size_t size);

/* The library's own threads: the watch that times out calls nobody waits
 * for ("sb-watch" in /proc/self/task/N/comm) exits when it has nothing
 * pending, and the threads of async interceptors ("sb-intercept") stay. A
 * host that forks (the scenario runner) calls this first: it asks the
 * watch to exit now if nothing it watches is pending, waits up to
 * `wait_ms`, and returns how many of the library's threads still run (0:
 * none, so forking leaves nothing of the library's behind). */
int sb__own_threads_settle(unsigned wait_ms);

/* The delivery of one call's `done` through a queue (queue.c; switchboard.h,
 * "Event loops"), made before the call starts so that ending it never
 * allocates. Exactly one of these ends it: sb__delivery_claim (the call
 * ended at once), or sb__delivery_end (its answer, from any thread). */
typedef struct sb__delivery sb__delivery;
/* SB_OK with *out set; SB_ENOMEM, or SB_EINVAL for a queue already freed
 * (the message set). */
sb_status sb__delivery_new(sb_queue *q, sb_done_fn done, void *userdata, sb__delivery **out);
/* The call ended at once: 1 when the caller runs `done` itself, now (this
 * is the queue's thread, outside any `done`); 0 when the queue was freed
 * meanwhile and its `done` ran there (drop the answer); -1, nothing done,
 * on any other thread or inside a `done`: end it with sb__delivery_end. */
int sb__delivery_claim(sb__delivery *d);
/* The call returned pending: `let_go(call, give_up)` runs exactly once,
 * after the call's `done` returned (never inside sb__delivery_end): with 0
 * after its answer's `done` ran (a dispatch, or sb_queue_free), with 1 if
 * the queue is freed first (the call is to be given up). Before the answer
 * can come. */
void sb__delivery_watch(sb__delivery *d, void *call, void (*let_go)(void *call, int give_up));
/* What a call kept for its work (references of the library's, NULL for
 * none): `let_go(owner, instance)` lets go of them. */
typedef struct sb__kept {
    void *owner, *instance;
    void (*let_go)(void *owner, void *instance);
} sb__kept;
/* The call's answer (`result` stolen; `message` copied for a failure):
 * queued for the next dispatch (1), or dropped if the queue was freed (0,
 * or -1 when `kept` was taken). `kept` (NULL for none: a watched call lets
 * go itself) is let go once, after the call's `done` returned: when queued,
 * and when sb_queue_free has yet to run that `done` (-1); the caller's when
 * 0 is returned. */
int sb__delivery_end(sb__delivery *d, sb_status status, sb_value *result, const char *message,
                     const sb__kept *kept);
/* Nonzero once the queue was freed before the call ended (its `done` ran,
 * or runs, with SB_ECANCELED). `delivery` is an sb__delivery whose call has
 * not ended (it is not freed before). */
int sb__delivery_cancelled(void *delivery);

#endif
