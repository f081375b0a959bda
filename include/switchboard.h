/*
 * switchboard.h — the C interface of Switchboard, a Target-Action mediator.
 *
 * Callers name what they want — sb_action_perform(m, "A", "showAlert", params, 0, &out)
 * — and never link the component that answers. The mediator finds target "A"
 * (registered with sb_action_register, or exported by a loaded plugin as
 * `Target_A`), runs its action with a dictionary of params, and hands back a
 * value.
 *
 * CONVENTIONS
 *
 * Names. Everything is prefixed sb_ / SB_. Functions read sb_<noun>_<verb>:
 * first the thing they act on or make (a value kind, the mediator, an
 * action, a target, a URL pattern, a call, ...), then what they do to it
 * (sb_action_register, sb_target_evict, sb_url_set_policy) or which of its
 * parts they read (sb_call_target, sb_value_type). A noun alone makes or
 * returns that thing (sb_int, sb_version, sb_routes). Each noun means one
 * thing: a "route" is a target and action (sb_route: one prepared for calls;
 * sb_routes: all that are reachable); a "URL pattern" maps URLs to routes or
 * to a handler; "release" drops a reference to a value, "evict" a target's
 * cached instance. scripts/check-names.sh checks every function.
 *
 * Status. Functions that can fail return sb_status (SB_OK is 0); the output
 * pointer comes last and is called `out`. On failure `*out` is set to NULL and
 * sb_error_message() describes what went wrong. Success does not clear that
 * message, so read it only after a failure. Which status means what is said
 * once, at sb_status, and each function names the ones it returns. A name or
 * id that is not there: a call (sb_action_perform, a route, a URL, a call of
 * a bound service) fails with SB_ENOTARGET or SB_ENOACTION, telling a
 * missing target from a missing action as CTMediator does; every other
 * lookup (removing, evicting, describing, an unknown id, a service never
 * defined) fails with SB_ENOTFOUND. SB_EINVAL is for arguments the function
 * can never accept (see sb_status) and SB_ETYPE only for values of the wrong
 * kind.
 *
 * Numbers. Every enum constant (sb_status, sb_type, sb_call_phase) and every
 * flag has an explicit value, part of the binary interface: a value is never
 * renumbered or reused, even for something withdrawn, and a new constant gets
 * a new number. Flags (SB_CACHE_TARGET, SB_BYPASS_INTERCEPTORS, SB_NO_FALLBACK)
 * are bits of one `unsigned`, or-ed together; a function refuses bits it
 * does not know (SB_EINVAL).
 *
 * Ownership, in jansson's words:
 *   new reference      the caller owns it and must sb_value_release() it;
 *   borrowed reference the caller may use it while the owner keeps it alive
 *                      (sb_value_retain() it to keep it longer) and must not release it;
 *   steals             the function takes over the caller's reference, on
 *                      success and on failure alike.
 * Strings returned as `const char *` are borrowed; strings the library
 * allocates for you (sb_json_encode) are freed with sb_memory_free().
 *
 * NULL. Every function accepts NULL for any pointer argument and returns a
 * documented status (usually SB_EINVAL) or a documented neutral value; free
 * and release functions do nothing with NULL. A wrong kind of value gives
 * SB_ETYPE. Nothing crashes on bad input.
 *
 * Versioned structs. A struct the caller fills (sb_call_options,
 * sb_url_options, sb_class_def, a plugin's sb_target_def) starts with
 * `int version`: start from its SB_<NAME>_INIT, or set version to
 * SB_<NAME>_VERSION. Fields are only ever added, at the end, each addition
 * with a new version; none moves or goes. The library reads only the fields
 * the caller's version has, so a program or plugin built against an older
 * header keeps working; a version below 1, or newer than the library
 * knows, is refused with SB_EINVAL ("sb_call_options version 7 is newer
 * than this library (2)"). A struct the library fills (sb_call_event)
 * carries the version it was made with: read a field only if `version` is
 * at least the one that added it (fields say "version N" when N is above
 * 1). Array elements (sb_action_def, sb_contract_def) have no version:
 * their layout is fixed by the version of the struct that points to them.
 * What the library shows through functions (an interceptor's sb_call)
 * grows by new functions.
 *
 * Threads. Every function is thread-safe unless its comment says otherwise.
 * The mediator takes no lock while it performs an action and no lock that an
 * action could wait on, so an action may itself call any sb_ function
 * (re-entrancy). A value may be shared between threads once it is built: its
 * reference count is atomic, but its contents must not be changed (appended
 * to, set) after it has been shared. Prepared routes may be called from
 * several threads at once. Calls in progress on one thread must return in
 * the reverse order they started (as plain calls do): do not switch between
 * fibers or stackful coroutines on one thread while each is inside a call
 * through the mediator (what one call uses could be released under another).
 * No function is async-signal-safe: they take locks and allocate, so one
 * called from a signal handler (a completion, an interceptor's decision) may
 * wait forever for the very thread the signal interrupted.
 *
 * User code. Functions marked "Calls user code" may run actions, callbacks or
 * destructors (free_userdata, a plugin's destroy, a pointer's destroy) before
 * they return. Destructors of replaced or unregistered actions, of removed
 * hooks and of evicted or ended target instances run exactly once, after the last
 * call using them has returned: usually at once, on the thread making the
 * change; if a call is running that action, on that instance, or with those
 * hooks, on its thread as it returns (at the latest at the next change or in
 * sb_mediator_free). A call uses only what it runs, so a call that runs for
 * hours holds back nothing else, in its mediator or another.
 *
 * One runtime per process. libswitchboard.so contains its own Swift runtime.
 * A process must load it once: link it (or let the Lua module or the
 * switchboard command load it) and never a second copy.
 *
 * Resources. A resource that runs out is a status, never a trap: when no
 * thread can be started for the watch that times out calls nobody waits
 * for (sb_action_perform_async with a timeout), the call fails with
 * SB_ENOMEM naming it. The library uses two pthread keys, made as it loads
 * and at its first call; with none left it still works (more slowly: its
 * per-thread records are found by thread, and error messages are cut at
 * 511 bytes).
 * The library's own threads are named in /proc: "sb-watch" (it exits once
 * the deadlines of the calls it watched have passed, answered or not; one
 * that ended is joined before a fork and at exit, and one still watching
 * is detached at exit, so thread checkers see no leak, except after _exit,
 * which runs no exit handler) and "sb-intercept" (async interceptors; they
 * stay). Memory is the exception:
 * the Swift runtime inside ends the process when malloc fails, as a Swift
 * program does.
 *
 * fork. A child of fork may go on using the library, from any number of
 * threads, when the parent ran one thread as it forked (as POSIX asks of
 * any library). The Swift runtime keeps each thread's kernel id for its
 * locks, and fork copies the forking thread's into the child; the library
 * makes the child's thread forget it (pthread_atfork), finding the
 * runtime's variables by name in the library's symbol table or, when the
 * library was stripped, in its debug file (beside it, in .debug/, or under
 * /usr/lib/debug, as gdb looks), read at the first fork and accepted only
 * with the loaded library's build id. Without either (or with the library
 * replaced on disk, upgraded, before the process first forks), two threads
 * of a child may hang when they meet on a lock.
 *
 * Building a host. pkg-config gives no run path; for a prefix the loader
 * does not search, ask for one:
 *   cc app.c $(pkg-config --cflags --libs switchboard) \
 *      -Wl,-rpath,$(pkg-config --variable=libdir switchboard)
 * (CMake: find_package(switchboard), target switchboard::switchboard.)
 * Under valgrind, suppress the Swift runtime's own blocks with the file
 * installed beside the library:
 *   valgrind --leak-check=full \
 *      --suppressions=$(pkg-config --variable=prefix switchboard)/share/switchboard/valgrind.supp ./app
 *
 * PLUGINS
 *
 * A plugin is a shared object that exports one `const sb_target_def
 * Target_<Name>` per target. It must link nothing of Switchboard — build it
 * with `cc -shared -fPIC plugin.c $(pkg-config --cflags switchboard)` and no
 * -lswitchboard — and takes the sb_ functions from the process that loads it,
 * as Lua C modules do. Targets are found by name on first use. A plugin is
 * never unloaded (sb_plugin_load): its threads may outlive its mediator.
 */
#ifndef SWITCHBOARD_H
#define SWITCHBOARD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define SB_API __attribute__((visibility("default")))
#else
#define SB_API
#endif

/* ---------------------------------------------------------------- version */

/* The release. SB_VERSION_NUMBER is MAJOR * 10000 + MINOR * 100 + PATCH. */
#define SB_VERSION_MAJOR 1
#define SB_VERSION_MINOR 1
#define SB_VERSION_PATCH 0
#define SB_VERSION_STRING "1.1.0"
#define SB_VERSION_NUMBER 10100

/* The binary interface. It changes only when a program or plugin built
 * against an older header would break. (Plugins declare the version of
 * their table, SB_TARGET_DEF_VERSION, not this: a library of ABI 1 reads
 * every table version from 1 on; a new ABI may stop reading the oldest.) */
#define SB_ABI_VERSION 1

/* The library's own release string, e.g. "1.0.0" (static storage). Compare
 * sb_version_number() with SB_VERSION_NUMBER to detect a header/library
 * mismatch, and sb_abi_version() with SB_ABI_VERSION to detect an
 * incompatible one. */
SB_API const char *sb_version(void);
SB_API int sb_version_number(void);
SB_API int sb_abi_version(void);

/* ------------------------------------------------------------------ types */

typedef struct sb_mediator sb_mediator; /* opaque */
typedef struct sb_value sb_value;       /* opaque, reference-counted */
typedef struct sb_route sb_route;       /* opaque; a prepared call */

typedef enum sb_status {
    SB_OK = 0,
    SB_EINVAL = 1,      /* an argument is malformed: a NULL pointer, an empty name, text
                         * that is not UTF-8, unknown flag bits, a number out of range
                         * (an index, a key length), a text that does not parse (JSON,
                         * a contract, a pattern, a rule), a value the operation can
                         * never accept (a cycle, nesting deeper than SB_MAX_DEPTH), a
                         * name another registration already holds (a plugin's
                         * Target_ table, a URL pattern's captures), a plugin file that
                         * is missing or not loadable, or a second decision on an
                         * interceptor's call (sb_call_*) */
    SB_ENOTARGET = 2,   /* a call (sb_action_perform, a route, a URL, a service call)
                         * found no target to answer the name, and no fallback did */
    SB_ENOACTION = 3,   /* a call found the target, but it has neither the action nor
                         * notFound (and no fallback answered) */
    SB_EACTION = 4,     /* the action or callback ran and failed; also a facility the
                         * system lacks (URL signing without libcrypto) */
    SB_ETYPE = 5,       /* a value has the wrong kind for the operation: a getter on
                         * another kind, params that are not a dict, a completion that
                         * is not a callback, a policy of the wrong shape, an action's
                         * result that is not of its contract's `-> type`, a target
                         * that does not conform to a service's interface */
    SB_EREJECTED = 6,   /* a policy or a limit refused the call before any target ran
                         * (the URL policy, the call depth limit SB_MAX_CALL_DEPTH),
                         * or refused a hook past SB_MAX_HOOKS */
    SB_EBADURL = 7,     /* a URL could not be parsed */
    SB_ENOMEM = 8,      /* an allocation failed */
    SB_EQUEUED = 9,     /* the callee belongs to another thread (a Lua state) and was
                         * queued to run there later; this caller gets no result */
    SB_ETIMEOUT = 10,   /* an interceptor did not decide, or an asynchronous action did
                         * not complete, in time (the message names it) */
    SB_ECANCELED = 11,  /* the caller cancelled the call (sb_cancellation) */
    SB_EPARAMS = 12,    /* the params broke the action's contract (a key missing or of
                         * the wrong type) */
    SB_EWOULDBLOCK = 13, /* waiting for an asynchronous action would block a thread that
                          * must not block (a synchronous Swift call from inside a Swift task) */
    SB_ENOTFOUND = 14,  /* a lookup that is not a call found nothing under the name or
                         * id: removing, unregistering, evicting or describing what is
                         * not there (a target, an action, a scheme, a URL pattern, a
                         * service, a class), an id no interceptor, observer or
                         * discoverer has, a completion that is not open, a
                         * registration that is not the caller's (the _if functions) */
    /* Not an error: an action returns it after sb_completion_take, to answer
     * later (see "Asynchronous actions"); the callers that do not wait
     * (sb_action_perform_async, ...) return it when `done` will run. A
     * waiting caller never sees it. */
    SB_PENDING = 64
} sb_status;

/* The kinds of value. Ints and doubles stay distinct: 3 is not 3.0. */
typedef enum sb_type {
    SB_NULL = 0,
    SB_BOOL = 1,
    SB_INT = 2,      /* int64_t */
    SB_DOUBLE = 3,
    SB_STRING = 4,   /* valid UTF-8; may contain NUL bytes */
    SB_BYTES = 5,    /* any bytes */
    SB_ARRAY = 6,
    SB_DICT = 7,     /* string keys -> values, in insertion order; keys are bytes */
    SB_CALLBACK = 8, /* callable from C, Swift or Lua */
    SB_POINTER = 9   /* an opaque host pointer, carried but never dereferenced */
} sb_type;

/* Containers nest at most this deep, counted over the whole value: no path
 * from a container that nothing contains passes through more than
 * SB_MAX_DEPTH containers, whatever order the value was built in. An
 * insertion that would nest deeper is refused (SB_EINVAL). A container shared
 * by several parents counts at its deepest place while it is there. */
#define SB_MAX_DEPTH 200

/*
 * An action and a callback have the same shape. `args` is borrowed (for an
 * action: the params dict, never NULL). On SB_OK, set *out to a new reference;
 * leaving it NULL means "nothing" and the caller receives an SB_NULL value.
 * On failure return any sb_status other than SB_OK (SB_EACTION if nothing
 * fits better; other numbers become SB_EACTION) and describe the problem with
 * sb_error_set(); anything left in *out is released. `userdata` is what was
 * registered, or the target's state for a plugin's actions.
 */
typedef sb_status (*sb_fn)(void *userdata, const sb_value *args, sb_value **out);

/* --------------------------------------------------------------- mediator */

/* The process-wide mediator, shared with Swift code (Mediator.shared) and
 * with the Lua module. Never freed. */
SB_API sb_mediator *sb_mediator_shared(void);

/* A new, empty mediator; NULL if out of memory. Free it with
 * sb_mediator_free(). */
SB_API sb_mediator *sb_mediator_new(void);

/* Releases a mediator made with sb_mediator_new(): unregisters everything
 * (running destructors), destroys cached target states, and forgets its
 * plugins (their code stays loaded: see sb_plugin_load). Prepared routes
 * keep their mediator alive until they are freed.
 * NULL and sb_mediator_shared() are no-ops. Must not be called while a call on
 * this mediator is running. A call whose caller does not wait, pending on an
 * interceptor's decision (SB_INTERCEPT_PENDING), ends first with
 * SB_ECANCELED: its `done` runs here, and a later decision is ignored.
 * Calls user code. */
SB_API void sb_mediator_free(sb_mediator *m);

/* ----------------------------------------------------------------- values */

/* Constructors. Each returns a new reference, or NULL on failure with
 * sb_error_message() set: out of memory, a NULL argument, or (sb_string,
 * sb_string_n) bytes that are not valid UTF-8 — use sb_bytes for those.
 * sb_bool treats any non-zero `b` as true. sb_string copies up to the NUL;
 * sb_string_n copies exactly n bytes, NUL bytes included. sb_bytes copies n
 * bytes (p may be NULL when n is 0). */
SB_API sb_value *sb_null(void);
SB_API sb_value *sb_bool(int b);
SB_API sb_value *sb_int(int64_t i);
SB_API sb_value *sb_double(double d);
SB_API sb_value *sb_string(const char *utf8);
SB_API sb_value *sb_string_n(const char *s, size_t n);
SB_API sb_value *sb_bytes(const void *p, size_t n);
SB_API sb_value *sb_array_new(void);
SB_API sb_value *sb_dict_new(void);

/* A value carrying host pointer `p`. `destroy`, if not NULL, is called with
 * `p` exactly once, when the last reference to the value is released (also
 * when this function fails). Calls user code only on failure. */
SB_API sb_value *sb_pointer(void *p, void (*destroy)(void *));

/* Reference counting. sb_value_retain returns `v` (NULL for NULL). sb_value_release may
 * free the value and run destructors it holds (calls user code). */
SB_API sb_value *sb_value_retain(sb_value *v);
SB_API void sb_value_release(sb_value *v);

/* The kind of `v`; SB_NULL for a NULL pointer. */
SB_API sb_type sb_value_type(const sb_value *v);

/* Getters are strict: each answers only for its own kind (SB_ETYPE
 * otherwise; sb_value_get_double on an int is SB_ETYPE). SB_EINVAL if `v` or `out`
 * is NULL. sb_value_get_bool stores 0 or 1. */
SB_API sb_status sb_value_get_bool(const sb_value *v, int *out);
SB_API sb_status sb_value_get_int(const sb_value *v, int64_t *out);
SB_API sb_status sb_value_get_double(const sb_value *v, double *out);
SB_API sb_status sb_value_get_pointer(const sb_value *v, void **out);

/* A string's UTF-8 bytes, NUL-terminated (the string itself may contain NUL
 * bytes; `*len`, if len is not NULL, is the full length). Borrowed: valid
 * while `v` lives. NULL when `v` is not a string (bytes included). */
SB_API const char *sb_value_get_string(const sb_value *v, size_t *len);

/* The bytes of an SB_BYTES value; borrowed, valid while `v` lives. NULL when
 * `v` is not bytes. An empty value gives a non-NULL pointer and *len 0. */
SB_API const void *sb_value_get_bytes(const sb_value *v, size_t *len);

/* Deep equality: same kind and same contents — strings byte for byte,
 * dicts the same keys (by bytes) with equal values, in any order, as JSON
 * objects compare; callbacks and pointers are equal only to themselves; doubles compare as IEEE numbers (NaN is unequal
 * to itself). Returns 1 or 0; two NULLs are equal. */
SB_API int sb_value_equal(const sb_value *a, const sb_value *b);

/* ------------------------------------------------------------- containers */

/* Appends `item` to `array`. sb_array_append retains `item`;
 * sb_array_append_new steals it, even on failure. SB_ETYPE if `array` is
 * not an array; SB_EINVAL if an argument is NULL, if `item` contains `array`
 * (no cycles), or if the result would nest deeper than SB_MAX_DEPTH (counting
 * the levels above `array` too, from every container that holds it).
 * Not thread-safe for an array another thread can see. */
SB_API sb_status sb_array_append(sb_value *array, sb_value *item);
SB_API sb_status sb_array_append_new(sb_value *array, sb_value *item);

/* Sets `key` (NUL-terminated UTF-8) to `v`, replacing (and releasing) an
 * existing value in its place; a new key goes last. Keys are compared by
 * their bytes, never by Unicode equivalence: "caf\xC3\xA9" and
 * "cafe\xCC\x81" (two spellings of e-acute) are two keys. Every face and
 * path keeps a dict's keys and their order (Swift's Value.Dict too; a Lua
 * table as docs/lua.md says). sb_dict_set retains `v`; sb_dict_set_new
 * steals it, even on failure. Errors as for sb_array_append; a key that is
 * not valid UTF-8 is SB_EINVAL. Not thread-safe for a dict another thread
 * can see. */
SB_API sb_status sb_dict_set(sb_value *dict, const char *key, sb_value *v);
SB_API sb_status sb_dict_set_new(sb_value *dict, const char *key, sb_value *v);

/* The value under `key`: borrowed, valid until the key is set again or the
 * dict is released. NULL if absent, or if `dict` is NULL or not a dict. */
SB_API sb_value *sb_dict_get(const sb_value *dict, const char *key);

/* The number of elements of an array or entries of a dict; 0 for anything
 * else, NULL included. */
SB_API size_t sb_value_count(const sb_value *array_or_dict);

/* Element `i` of `array`: borrowed. NULL if out of range or not an array. */
SB_API sb_value *sb_array_get(const sb_value *array, size_t i);

/* Entry `i` of `dict`, in insertion order, for iteration with sb_value_count():
 *     for (size_t i = 0; i < sb_value_count(d); i++) { sb_dict_at(d, i, &k, &v); ... }
 * Both out pointers are borrowed and valid until the dict changes; either may
 * be NULL. SB_ETYPE if not a dict; SB_EINVAL if `i` is out of range. */
SB_API sb_status sb_dict_at(const sb_value *dict, size_t i, const char **key, sb_value **value);

/* ------------------------------------------------------------------- JSON */

/* `v` as one line of JSON, dict keys in the dict's order and byte for byte.
 * Doubles keep a fraction or an exponent ("3.0"); NaN and infinities are
 * written NaN, Infinity, -Infinity;
 * bytes, callbacks and pointers become {"$bytes":"<hex>"}, {"$callback":...},
 * {"$pointer":...}. The caller frees the result with sb_memory_free(). NULL if `v`
 * is NULL or out of memory. */
SB_API char *sb_json_encode(const sb_value *v);

/* Parses one JSON text (RFC 8259; also NaN, Infinity, -Infinity) into a new
 * value in *out. A number written without fraction or exponent that fits in
 * 64 bits is an int, any other number a double, so sb_json_encode's output reads
 * back to an equal value, keys in the same order; {"$bytes":"<hex>"} reads
 * as bytes. Strict: no comments or trailing commas, no key twice in one
 * object (the same bytes twice: two spellings of one character are two
 * keys), nesting at most SB_MAX_DEPTH. SB_EINVAL (with the line and column of the problem) for
 * malformed JSON, text that is not UTF-8, or NULL arguments. */
SB_API sb_status sb_json_decode(const char *json, sb_value **out);

/* Frees memory the library allocated for the caller (sb_json_encode). NULL is a
 * no-op. */
SB_API void sb_memory_free(void *p);

/* -------------------------------------------------------------- callbacks */

/* A callback value that calls fn(userdata, args, &out). `free_userdata`, if
 * not NULL, runs exactly once with `userdata`: when the last reference to the
 * callback is released, or at once if this function fails (fn NULL: returns
 * NULL with SB_EINVAL). New reference. */
SB_API sb_value *sb_callback_new(sb_fn fn, void *userdata, void (*free_userdata)(void *));

/* Calls `callback` — made in C, Swift or Lua — with `args` (borrowed; NULL
 * means an SB_NULL value). On SB_OK *out is a new reference (never NULL); `out`
 * may be NULL to discard the result. SB_ETYPE if `callback` is not a callback;
 * SB_EREJECTED if the call would nest too deep (SB_MAX_CALL_DEPTH); otherwise
 * the callback's own status. Calls user code. */
SB_API sb_status sb_callback_call(const sb_value *callback, const sb_value *args, sb_value **out);

/* ------------------------------------------------------------ registering */

/* Registers `fn` as `action` of `target`. Replaces an existing registration of
 * the same pair; the old userdata's destructor runs once no call is still
 * using it. `free_userdata`, if not NULL, runs exactly once: when the action
 * is replaced or unregistered, when the mediator is freed, or at once if
 * registration fails. SB_EINVAL for a NULL or empty name, a name that is not
 * valid UTF-8, or a NULL `fn`. An action named "notFound" answers for actions
 * the target does not have. Calls user code (destructors). */
SB_API sb_status sb_action_register(sb_mediator *m, const char *target, const char *action,
                                    sb_fn fn, void *userdata, void (*free_userdata)(void *));

/* sb_action_register with a contract: what the action's params must be,
 * checked before each call. NULL `contract` is sb_action_register. The
 * contract syntax, one item per line or separated by commas:
 *
 *     "message: string   -- the text to show\n"   required
 *     "confirm: callback? -- called with the answer\n"   optional
 *     "times: int = 1\n"                           optional, default (JSON)
 *     "-> bool\n"                                  the result's type
 *     "local"                                      not reachable from URLs
 *     "async"                                      answers later (SB_PENDING)
 *
 * Types: bool int double string bytes array dict callback any. Before the
 * action runs, a missing required param or a value of another type fails the
 * call with SB_EPARAMS (the message names the param and both types);
 * defaults are filled in; an int passes for a double; for a URL call, query
 * strings become the declared bool, int or double. Other keys pass through.
 * After it runs, a result of another kind than the declared one fails the
 * call with SB_ETYPE (see sb_action_perform). `async` changes no check: it tells the
 * catalogue (sb_routes_json lists the target's "async" actions) and the
 * generated wrappers (which call sb_action_perform_async) that the action answers
 * later. The JSON form that sb_routes_json lists is accepted too. SB_EINVAL (and
 * free_userdata runs) for a contract that does not parse, names a param
 * twice or has a default of the wrong type; otherwise as sb_action_register. */
SB_API sb_status sb_action_register_contract(sb_mediator *m, const char *target, const char *action,
                                             const char *contract, sb_fn fn, void *userdata,
                                             void (*free_userdata)(void *));

/* Checks a contract without registering anything: SB_OK, or SB_EINVAL with
 * the reason in sb_error_message(). For tools and other faces. */
SB_API sb_status sb_contract_check(const char *contract);

/* Says where the actions registered under `target` come from (UTF-8, e.g.
 * "Lua file targets/Target_A.lua"): the catalogue (sb_routes_json,
 * sb.routes) shows it as the target's "origin" instead of "registered". It is
 * forgotten when the target loses its last registered action or has one
 * more registered: say it again after registering. The Lua module and the
 * switchboard command set it for the Target_<Name>.lua files they load.
 * SB_ENOTFOUND if `target` has no registered action; SB_EINVAL for a NULL
 * mediator, or a NULL, empty or non-UTF-8 target or origin. */
SB_API sb_status sb_target_set_origin(sb_mediator *m, const char *target, const char *origin);

/* Removes every action registered under `target` and drops its cached state.
 * A plugin's target is found again on its next use. SB_ENOTFOUND if nothing
 * was known under that name; SB_EINVAL for a NULL mediator or a NULL, empty
 * or non-UTF-8 name. Calls user code (destructors). */
SB_API sb_status sb_target_unregister(sb_mediator *m, const char *target);

/* Removes one registered action. SB_ENOTFOUND if it was not registered
 * (a plugin's own actions cannot be removed); SB_EINVAL for a NULL mediator
 * or a NULL, empty or non-UTF-8 name. Calls user code. */
SB_API sb_status sb_action_unregister(sb_mediator *m, const char *target, const char *action);

/* Removes one registered action only if it is still registered with exactly
 * this `fn` and `userdata` (as sb_action_register or _contract registered
 * it): for code that removes what it registered when it goes away (the Lua
 * module does when a state closes), leaving a registration another owner
 * made since under the same name. SB_ENOTFOUND if the action is not
 * registered, or not with this pair; SB_EINVAL as for sb_action_unregister,
 * and for a NULL `fn`.
 * Keep `userdata` alive until this returns, or another registration may
 * reuse its address. Calls user code (destructors). */
SB_API sb_status sb_action_unregister_if(sb_mediator *m, const char *target, const char *action,
                                         sb_fn fn, const void *userdata);

/* ---------------------------------------------------------- target classes */

/*
 * A target class defined at run time: what a plugin's Target_<Name> table
 * is, for code that knows its actions only when it runs (the Lua module
 * registers a Target_<Name>.lua file that returns a constructor this way).
 * Its calls get instances exactly as a plugin target's do (see sb_action_perform):
 * create() makes one for the call and destroy() ends it after the call,
 * unless one is cached; with SB_CACHE_TARGET the instance made is kept
 * until sb_target_evict() or the class is replaced or unregistered.
 *
 *   create(userdata, &state)   makes an instance: SB_OK with its state in
 *                              *state (which may be NULL), or a failure
 *                              status with sb_error_set(): the call fails
 *                              with them and no action runs;
 *   call(userdata, state, action, args, &out)
 *                              runs `action` (one of `actions`) on the
 *                              instance, with the sb_fn contract for *out;
 *   destroy(userdata, state)   ends an instance, exactly once, on the thread
 *                              whose call let go of it last; may be NULL.
 *
 * `actions` lists the action names (non-empty UTF-8, ending with NULL; a
 * repeated name keeps its first entry); `contracts` is NULL or holds one
 * contract (NULL for none; the syntax of sb_action_register_contract) per
 * action; `origin` (NULL: "registered class") is what the catalogue shows.
 * Everything is copied: `def` need not outlive the call.
 */
typedef struct sb_class_def {
    int version;                  /* SB_CLASS_DEF_VERSION (see "Versioned structs") */
    const char *const *actions;
    const char *const *contracts;
    sb_status (*create)(void *userdata, void **state);
    sb_status (*call)(void *userdata, void *state, const char *action, const sb_value *args, sb_value **out);
    void (*destroy)(void *userdata, void *state);
    const char *origin;
} sb_class_def;
#define SB_CLASS_DEF_VERSION 1
#define SB_CLASS_DEF_INIT {SB_CLASS_DEF_VERSION, NULL, NULL, NULL, NULL, NULL, NULL}

/* Registers `def` as the class of `target`. Replaces a class registered or
 * discovered under that name (its cached instance goes with it); actions
 * registered with sb_action_register stay, and are found first. `userdata`
 * is handed to every function of `def`; `free_userdata`, if not NULL, runs
 * exactly once: when the class is replaced or unregistered
 * (sb_target_unregister) and no call still uses it, when the mediator is
 * freed, or at once if this fails. SB_EINVAL for a NULL `m` or `def`, a
 * version it cannot read (see "Versioned structs"), a NULL create or call,
 * an invalid target or action name, no actions, or a contract that does
 * not parse. Calls user code (destructors). */
SB_API sb_status sb_class_register(sb_mediator *m, const char *target, const sb_class_def *def, void *userdata,
                                   void (*free_userdata)(void *));

/* Removes the class of `target` only if it is still the one registered with
 * `userdata` (see sb_action_unregister_if): for code that removes what it
 * registered when it goes away (the Lua module does when a state closes).
 * Actions registered by name stay; a discoverable target is found again on
 * its next use. SB_ENOTFOUND if `target` has no class registered with this
 * `userdata`; SB_EINVAL for a NULL `m` or an invalid name. Calls user code
 * (destructors). */
SB_API sb_status sb_class_unregister_if(sb_mediator *m, const char *target, const void *userdata);

/* ------------------------------------------------------------- performing */

/* Bit flags for sb_action_perform and sb_route_prepare (or them together). */
#define SB_CACHE_TARGET 1u /* keep the target instance for later calls */
#define SB_NO_FALLBACK 4u  /* no fallback answers (NoTargetAction, degrade rules, the
                            * degrade handler): SB_ENOTARGET / SB_ENOACTION instead;
                            * sb_action_perform, sb_action_perform_opts and sb_service_perform
                            * only (not routes or URLs: SB_EINVAL). The generated
                            * wrappers of actions with a declared result pass it. */

/* Calls nest (an action may perform) at most this deep on one thread,
 * counted across mediators: a deeper sb_action_perform, sb_route_call or
 * sb_url_open fails with SB_EREJECTED before any target code runs, as it
 * does when the thread's own stack is nearly used up. A re-entrant perform
 * that never stops gets that error instead of a stack overflow. Every way
 * user code re-enters counts: callbacks (sb_callback_call counts as a call),
 * interceptors, observers, the URL observer, URL completions, discoverers
 * and the degrade handler run inside a call in progress, so what they call
 * is one level deeper; a call refused for its depth runs none of them. */
#define SB_MAX_CALL_DEPTH 1000

/* The params key that names the module of a target for one call: with
 * {SB_MODULE_KEY: "Mod"}, target "T" is looked up as "Mod.T" (a Swift class
 * Mod.Target_T, or what is registered as "Mod.T"). SB_MODULE_KEY_CTMEDIATOR,
 * CTMediator's own key, is an alias: the first of the two that holds a
 * non-empty string names the module; an empty string names none (as in
 * CTMediator). Neither key can come from a URL's query (SB_EREJECTED). A
 * module with a NUL byte is SB_EINVAL. */
#define SB_MODULE_KEY "switchboard.module"
#define SB_MODULE_KEY_CTMEDIATOR "kCTMediatorParamsKeySwiftTargetModuleName"

/*
 * Performs `action` on `target` with `params` (a dict, or NULL for none;
 * borrowed). Resolution:
 *   1. an action registered with sb_action_register;
 *   2. the action of a target class: a plugin's Target_<Name> table (plugins
 *      in load order; the first that exports it wins), or a Swift class;
 *   3. missing action: the target's "notFound" action, with the same params;
 *   4. missing target, or missing action and no notFound: the "response"
 *      action of target "NoTargetAction", with params, in this order:
 *      {originParams: the caller's params or an empty dict,
 *       targetString: "Target_<target>" ("Mod.Target_<target>" when the call
 *         named module Mod), the class name CTMediator reports,
 *       selectorString: "Action_<action>:", CTMediator's selector,
 *       target: `target`, action: `action` (the names as given),
 *       url: the URL, only for a call that came from sb_url_open}.
 *      Degrade rules and the degrade handler get the same params.
 * The result and status are those of whichever action answered. With nothing
 * to answer (or SB_NO_FALLBACK): SB_ENOTARGET (no target) or SB_ENOACTION (no
 * action). When the answering action's contract declares a result (`-> dict`),
 * a result of another kind fails the call with SB_ETYPE, the message naming
 * the action and both types ("A.show: expected a dict result, got int"), and
 * the result is released; an int where a double is declared and a string
 * where bytes are declared are converted, as params are. This holds on every
 * path: the cached fast path, routes, URLs, notFound and the fallbacks, and
 * an interceptor's answer (sb_call_answer), which stands in for the result of
 * the action the call names and is checked as that action's own would be.
 * A missing action with no notFound also evicts the target's cached
 * instance, as CTMediator removes the target from its cache.
 *
 * A target instance (a plugin's create() state, or a class's: see
 * sb_class_register) is made for this call and
 * destroyed after it, unless one is cached; with SB_CACHE_TARGET the instance
 * made is kept until sb_target_evict(). A plugin target with neither
 * create nor destroy has no instances: its actions get a NULL state.
 *
 * On SB_OK *out is a new reference, never NULL; `out` may be NULL to discard
 * the result. SB_EINVAL for NULL or empty names, names that are not valid
 * UTF-8, or unknown flag bits; SB_ETYPE for params that are not a dict;
 * SB_EREJECTED for a call nested too deep
 * (SB_MAX_CALL_DEPTH). Calls user code.
 */
SB_API sb_status sb_action_perform(sb_mediator *m, const char *target, const char *action,
                                   const sb_value *params, unsigned flags, sb_value **out);

/* Drops the cached instance of `target` (the name the call used, or
 * "Mod.<target>" for a call that named module Mod); calls still using it
 * finish first, then it is destroyed. SB_OK when an instance was evicted;
 * SB_ENOTFOUND when none is cached under that name (nothing evicted);
 * SB_EINVAL for a NULL or empty name. Calls user code (a plugin's destroy). */
SB_API sb_status sb_target_evict(sb_mediator *m, const char *target);

/* ---------------------------------------------------------- prepared routes */

/*
 * A prepared call, like sqlite3_stmt: the names are resolved once, and each
 * call checks only that the registry has not changed since.
 *
 * sb_route_prepare fails with SB_ENOTARGET / SB_ENOACTION when the pair does
 * not resolve now; it never falls back (no notFound, no NoTargetAction). A
 * route stays valid across registry changes: after its target is
 * unregistered a call returns SB_ENOTARGET; after re-registration it calls
 * the new action. `flags` as for sb_action_perform. *out is a new route, freed with
 * sb_route_free(); it keeps the mediator alive.
 *
 * sb_route_call behaves like sb_action_perform with the prepared names (without
 * fallbacks). Routes may be called from several threads at once.
 */
SB_API sb_status sb_route_prepare(sb_mediator *m, const char *target, const char *action,
                                  unsigned flags, sb_route **out);
SB_API sb_status sb_route_call(sb_route *r, const sb_value *params, sb_value **out);
SB_API void sb_route_free(sb_route *r);

/* --------------------------------------------------------------- services */

/*
 * A service is a named interface — a set of action names, each with an
 * optional contract — that callers ask for by the interface's name, never
 * naming the target behind it; a binding says which target implements it
 * (the protocol-class scheme, as Swift's register(P.self) / service(P.self),
 * which the catalogue lists in the same "services" section).
 *
 * The interface text has one action per line (or separated by ';'), a name
 * with an optional contract in parentheses (the syntax of
 * sb_action_register_contract); blank lines and lines starting with "--"
 * are skipped:
 *
 *     "charge(cents: int, currency: string = \"EUR\" -> bool)\n"
 *     "refund(cents: int)\n"
 *     "status\n"
 *
 * sb_service_define defines (or replaces, dropping its binding) the service
 * `name`. SB_EINVAL for a NULL `m`, an invalid name, a NULL or non-UTF-8
 * interface, one that declares no action or an action twice, or a contract
 * that does not parse.
 *
 * sb_service_bind binds it to `target` (NULL unbinds) after checking that the
 * target conforms: it has every action of the interface (registered, or of
 * its class, found as a call would find it: a plugin, a discoverer or a Lua
 * file may be loaded; notFound does not count), and each contract is
 * compatible: every param the target requires is one the interface
 * requires, every param both declare has the same type (the target may take
 * any, or a double for an int), and a result the interface declares is the
 * target's declared result. SB_ETYPE (the target is not of the interface's
 * kind) naming every missing or incompatible action; SB_ENOTFOUND for an
 * undefined service or a target nothing answers to; SB_EINVAL for a NULL `m`
 * or an invalid name. A new binding replaces the old one at once: a call sees one or the
 * other. Calls user code (discoverers, Lua files).
 *
 * sb_service_perform performs `action` of the service on its bound target,
 * as sb_action_perform(m, target, action, params, flags, out) would (its statuses,
 * fallbacks and ownership); the target is found with one lookup, and the
 * binding alone picks it (a module key in `params` is passed on as a param
 * and chooses nothing). The interface holds at the call, not only when the
 * target was bound (it may have been replaced since, or be gone so that a
 * fallback answers): when the interface gives `action` a contract, `params`
 * are checked against it first (SB_EPARAMS; its defaults are filled in),
 * and a result it declares is checked after, as sb_action_perform checks an
 * action's (SB_ETYPE, the message naming "service <name>.<action>"). Also
 * SB_ENOTFOUND for an undefined service, SB_ENOTARGET for an unbound one
 * (no target answers the call), SB_ENOACTION for an action its interface
 * does not declare. Calls user code.
 *
 * sb_service_remove removes the service and its binding; SB_ENOTFOUND if it
 * was not defined.
 */
SB_API sb_status sb_service_define(sb_mediator *m, const char *name, const char *interface);
SB_API sb_status sb_service_bind(sb_mediator *m, const char *name, const char *target);
SB_API sb_status sb_service_perform(sb_mediator *m, const char *name, const char *action,
                                    const sb_value *params, unsigned flags, sb_value **out);
SB_API sb_status sb_service_remove(sb_mediator *m, const char *name);

/* ---------------------------------------------------------------- errors */

/* A short description of a status, e.g. "no such target"; static storage. */
SB_API const char *sb_status_string(sb_status s);

/* The status's name, as the Lua face, the switchboard command and traces
 * give it: the constant without "SB_" ("ENOTARGET", "OK", "PENDING"), or
 * "EUNKNOWN" for a number no status has (as libuv's uv_err_name beside
 * uv_strerror); static storage, never NULL. Calls no user code.
 * New after 1.0.0, for 1.1 (symbol version SWITCHBOARD_1.1). */
SB_API const char *sb_status_name(sb_status s);

/* The calling thread's last error message. Never NULL ("" before any error).
 * Valid until the next sb_ call that fails on this thread. Not a success
 * test: read it only after a function reported failure. */
SB_API const char *sb_error_message(void);

/* For actions and callbacks: sets the calling thread's error message,
 * printf-style, before returning a failure status. The arguments may point
 * into the message being replaced: sb_error_set("loading: %s",
 * sb_error_message()) wraps the last error. */
SB_API void sb_error_set(const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* ------------------------------------------------------------------- URLs */

/*
 * The URL entry (CTMediator's remote call): `scheme://target/action?k=v`
 * becomes sb_action_perform(m, target, action, {k: "v"}, 0, ...), with the
 * NoTargetAction fallback. In order:
 *   1. the URL is parsed strictly (RFC 3986; see the README for the decoding
 *      rules): a malformed URL, no host, 64 KiB or more, a bad percent
 *      escape, a NUL, bytes that are not UTF-8 are SB_EBADURL;
 *   2. the URL policy may refuse the scheme (SB_EREJECTED);
 *   3. a URL pattern of the scheme decides the target and action if one
 *      matches (sb_url_pattern_add), else the scheme's connector does
 *      (sb_scheme_register; "app" is connected to targets by default), else
 *      the unmatched-URL fallback (sb_url_fallback_set); with none of them
 *      SB_ENOTARGET ("no pattern of the scheme ... matches", naming the
 *      nearest patterns). One trailing "/" is ignored (app://A/show/ is
 *      app://A/show, as in CTMediator); a URL for targets with more path
 *      segments than one action is SB_EBADURL, unless a fallback takes it.
 *      Routes are chosen by host and path: a URL with a user, password or
 *      port matches no pattern and is no URL for targets; only a handler
 *      that gets the whole URL (a forward connector, the fallback) takes it,
 *      else SB_EBADURL;
 *   4. the policy may refuse the target, and an action whose name starts
 *      with "native" (in any case) is always refused (SB_EREJECTED). A
 *      refused call reaches no target code and is reported to the observer.
 * Params: the query (strings; a repeated key gives an array), path captures
 * over it, for a pattern the router's keys SB_PATTERN_KEY, SB_SCHEME_KEY and
 * SB_URL_KEY, and the options' `params` over all: what code passes wins over
 * what the URL says. No query key may start with SB_RESERVED_KEY_PREFIX (or
 * be SB_MODULE_KEY_CTMEDIATOR): SB_EREJECTED. The fallbacks are also told
 * the URL (their params' "url", see sb_action_perform).
 *
 * `options` may be NULL (no params, no completion, no call options). On
 * SB_OK *out (if `out` is not NULL) is a new reference to the result.
 * SB_EINVAL for a NULL `m` or `url` and for options of an unknown version;
 * SB_ETYPE for params that are not a dict or a completion that is not a
 * callback. With call options: SB_ECANCELED when the call was cancelled
 * before its target ran, SB_ETIMEOUT as for sb_action_perform_opts. Calls
 * user code.
 */
typedef struct sb_url_options {
    int version;                          /* SB_URL_OPTIONS_VERSION */
    const sb_value *params;               /* NULL, or a dict laid over the URL's params (borrowed) */
    const sb_value *completion;           /* NULL, or a callback called before sb_url_open
                                           * returns with {"result": value} or
                                           * {"error": message, "code": "EBADURL"}
                                           * (CTMediator's completion); not for
                                           * sb_url_open_async, which returns
                                           * SB_OK and gives `done` SB_EINVAL */
    const struct sb_call_options *call;   /* NULL, or per-call options (flags, tags,
                                           * cancellation, timeout; see sb_action_perform_opts) */
} sb_url_options;
#define SB_URL_OPTIONS_VERSION 1
#define SB_URL_OPTIONS_INIT {SB_URL_OPTIONS_VERSION, NULL, NULL, NULL}

SB_API sb_status sb_url_open(sb_mediator *m, const char *url, const sb_url_options *options, sb_value **out);

/* Connects `scheme` (letters, digits, + - .; any case). With `fn` NULL, URLs
 * of the scheme name targets: scheme://target/action. With `fn`, every URL
 * of the scheme goes to fn, whose args are {url, scheme, host, path (an
 * array of segments), query (a dict)} plus the params passed beside the URL
 * — a web handler for "https", say. The handler is no target: no name
 * reaches it (not sb_action_perform, not an app:// URL), only URLs of its scheme;
 * the URL policy admits it by the scheme. `free_userdata` as for
 * sb_action_register (with `fn` NULL it runs at once: nothing keeps the
 * userdata). Replaces an earlier connector (and releases its handler).
 * SB_EINVAL for a bad scheme. Calls user code (destructors). */
SB_API sb_status sb_scheme_register(sb_mediator *m, const char *scheme, sb_fn fn, void *userdata,
                                    void (*free_userdata)(void *));

/* Disconnects `scheme` (releasing its handler, if any). SB_ENOTFOUND if it
 * was not connected; SB_EINVAL for a NULL `m` or `scheme`. */
SB_API sb_status sb_scheme_unregister(sb_mediator *m, const char *scheme);

/* Disconnects `scheme` only if its handler is still exactly this `fn` and
 * `userdata` (as sb_scheme_register set it), like sb_action_unregister_if.
 * SB_ENOTFOUND if it is not (or the scheme has no handler). */
SB_API sb_status sb_scheme_unregister_if(sb_mediator *m, const char *scheme, sb_fn fn, const void *userdata);

/* The keys the URL router adds to the params of a call a pattern chose: the
 * pattern as added, the scheme in lower case, the URL as opened. A URL's
 * query can set no key that starts with SB_RESERVED_KEY_PREFIX. */
#define SB_RESERVED_KEY_PREFIX "switchboard."
#define SB_PATTERN_KEY "switchboard.pattern"
#define SB_SCHEME_KEY "switchboard.scheme"
#define SB_URL_KEY "switchboard.url"

/*
 * Sends URLs matching `pattern` to `action` of `target`. Patterns:
 *   app://user/:id/profile      :id (or <id>, <string:id>) matches one segment (a string)
 *   app://item/<int:id>         an integer segment (an int in params)
 *   app://price/<float:p>       a decimal number (a double)
 *   app://order/<uuid:id>       a UUID (a string in lower case)
 *   app://hello/<greeting:who>  a converter's type (sb_url_converter_add)
 *   app://files/<path:rest>     one or more segments, as "a/b/c"
 *   a last segment *            any rest, as an array under "*" (app://web/ then *)
 *   app://user/:id(/:tab)       a group in parentheses is optional (at most 4),
 *   app://(v1/):object/:id      wherever it holds whole segments
 * <path:> and * may stand for the host (https://<path:url>). A pattern with
 * no host (app://), or a raw "#" or "?" (no URL written so could reach it),
 * is SB_EINVAL; the message names the form to use.
 * Precedence, segment by segment: literal, <int:>, <float:>, <uuid:>,
 * converters (in the byte order of their types), :name, <path:>, *.
 * Matching visits each node of a segment trie at most once, and at most
 * 4,096 nodes per URL: a URL that would need more (crafted patterns whose
 * placeholders all fit its segments) is SB_EREJECTED. SB_EINVAL for a
 * malformed pattern (with the reason), and for one of the same shape as a
 * pattern already added (it would match the same URLs at equal precedence;
 * the message names it; remove it first). Adding the same text for the same
 * target and action again is SB_OK and changes nothing.
 */
SB_API sb_status sb_url_pattern_add(sb_mediator *m, const char *pattern, const char *target, const char *action);

/* Sends URLs matching `pattern` to fn, with the params sb_url_pattern_add
 * gives a target (query and captures, then the params passed beside the
 * URL). Like a scheme handler, fn is no target: it is reached only through
 * its pattern, never by a name. `free_userdata` as for sb_action_register
 * (it runs at once when this fails). Errors as sb_url_pattern_add, and
 * SB_EINVAL for a NULL fn. Adding the same pattern again replaces fn.
 * sb_url_pattern_remove removes it. Calls user code (destructors). */
SB_API sb_status sb_url_pattern_add_handler(sb_mediator *m, const char *pattern, sb_fn fn, void *userdata,
                                            void (*free_userdata)(void *));

/* Removes the routes added with exactly this pattern text (and the handler
 * of sb_url_pattern_add_handler). SB_ENOTFOUND if there were none. */
SB_API sb_status sb_url_pattern_remove(sb_mediator *m, const char *pattern);

/* Removes `pattern` only if its handler is still exactly this
 * `fn` and `userdata` (as sb_url_pattern_add_handler set it), like
 * sb_action_unregister_if. SB_ENOTFOUND if it is not (or it has none). */
SB_API sb_status sb_url_pattern_remove_handler_if(sb_mediator *m, const char *pattern, sb_fn fn, const void *userdata);

/* Removes every pattern of `scheme` (any case), with their handlers
 * (JLRoutes' unregisterRouteScheme:). On SB_OK *out (if `out` is not NULL)
 * is a new reference to an array of the patterns' texts as they were added,
 * each once, in the order they were added. SB_ENOTFOUND when the scheme had
 * none; SB_EINVAL for a NULL `m` or `scheme`. Calls user code (destructors).
 * Since 1.1. */
SB_API sb_status sb_url_pattern_remove_scheme(sb_mediator *m, const char *scheme, sb_value **out);

/*
 * Registers the placeholder type `type` (`<type:name>` in patterns;
 * URLNavigator's value converters): while a URL is matched, fn(userdata,
 * segment, &out) gets a decoded segment (a string value, borrowed) and sets
 * *out to the value to capture (a new reference), or leaves it NULL (or
 * null) to decline: the pattern does not match there and matching goes on.
 * Any other status fails the URL call with it. `type`: ASCII letters,
 * digits and _, not starting with a digit, at most 64 bytes, not a built-in
 * type (int, string, float, uuid, path): else SB_EINVAL. Replaces a
 * converter of the same type. A pattern naming a type that is not
 * registered is refused (SB_EINVAL).
 *
 * fn runs outside every lock, on the thread matching the URL (a URL call, a
 * lookup, sb_url_build), as one more call level of that thread; it may open
 * URLs or add patterns. It is asked only for segments that a walk of the
 * patterns reaches in precedence order, at most once per segment, at most
 * 32 times per URL (then the URL is SB_EREJECTED). A lookup runs converters
 * too: answer without side effects. `free_userdata` as for
 * sb_action_register. Calls user code (destructors). Since 1.1.
 */
SB_API sb_status sb_url_converter_add(sb_mediator *m, const char *type, sb_fn fn, void *userdata,
                                      void (*free_userdata)(void *));

/* Removes the converter `type`; patterns that name it then match nothing at
 * its placeholder. SB_ENOTFOUND if there was none. _if: only if its function
 * is still exactly `fn` and `userdata`. Calls user code (destructors).
 * Since 1.1. */
SB_API sb_status sb_url_converter_remove(sb_mediator *m, const char *type);
SB_API sb_status sb_url_converter_remove_if(sb_mediator *m, const char *type, sb_fn fn, const void *userdata);

/*
 * The unmatched-URL fallback (JLRoutes' unmatchedURLHandler): a URL of
 * `scheme` (any case; NULL: of every scheme without a fallback of its own)
 * that no pattern matches and its scheme's connector cannot take goes to
 * `action` of `target`, or to fn with the _handler form, with the params of
 * a forward connector: {url, scheme, host, path, query}, plus the params
 * passed beside the URL. The URL policy holds for it as for any URL call
 * (the scheme, its target, the native rule, after every redirect). A URL
 * that does not parse never reaches it, nor one the targets connector takes
 * (a target that is not there gets NoTargetAction). Replaces the scheme's
 * earlier fallback (and releases its handler). The handler, like a scheme's,
 * is no target: no name reaches it. SB_EINVAL for a NULL `m`, a bad scheme
 * or name, or a NULL fn. `free_userdata` as for sb_action_register. Calls
 * user code (destructors). Since 1.1.
 */
SB_API sb_status sb_url_fallback_set(sb_mediator *m, const char *scheme, const char *target, const char *action);
SB_API sb_status sb_url_fallback_set_handler(sb_mediator *m, const char *scheme, sb_fn fn, void *userdata,
                                             void (*free_userdata)(void *));

/* Removes the fallback of `scheme` (NULL: the one of every scheme).
 * SB_ENOTFOUND if there was none. _handler_if: only if its handler is still
 * exactly `fn` and `userdata`. Calls user code (destructors). Since 1.1. */
SB_API sb_status sb_url_fallback_remove(sb_mediator *m, const char *scheme);
SB_API sb_status sb_url_fallback_remove_handler_if(sb_mediator *m, const char *scheme, sb_fn fn, const void *userdata);

/*
 * Where the URL router sends `url`, without calling anything (JLRoutes'
 * canRouteURL:, URLNavigator's handler(for:)): no target, interceptor,
 * observer or completion runs, nothing is discovered. On SB_OK *out (if
 * `out` is not NULL) is a new reference to {"kind": "pattern" | "targets" |
 * "forward" | "fallback", "scheme", "target", "action" (absent for a
 * handler), "handler": bool, "pattern" (for "pattern"), "params": the dict
 * the call would get from the URL}. Fails as sb_url_open would before any
 * target runs (SB_EBADURL, SB_EREJECTED: the signature, the policy, the
 * native rule; SB_ENOTARGET), without telling the URL observer; and with
 * SB_EINVAL for params (a converter's values) already as deep as
 * SB_MAX_DEPTH allows, which the call would pass but the answer, one level
 * further down, cannot hold. Rules and interceptors may still move the call
 * once it is made, and a target that is not there gets the NoTargetAction
 * fallback. Calls user code (converters). The answer is the caller's; its
 * string values may be shared with other answers (strings never change).
 * Since 1.1.
 */
SB_API sb_status sb_url_lookup(sb_mediator *m, const char *url, sb_value **out);

/*
 * The URL `pattern` stands for with its placeholders filled from `params`
 * (a dict; NULL for none), MGJRouter's generateURLWithPattern:. Each
 * placeholder needs a value of its type (:name a non-empty string, <int:>
 * an int, <float:> a finite double, <uuid:> a UUID string, a converter's
 * type a string it accepts, <path:> non-empty segments joined by "/", * an
 * array of non-empty strings); optional groups are written when their
 * values are given, left out when none is; the other params become the
 * query (a string, or an array of at least two strings). Everything but
 * letters, digits and - . _ ~ is percent-encoded. Matching the URL against
 * the pattern gives the params back: the URL is checked so before it is
 * given. On SB_OK *out is a new string (free it with sb_memory_free); on
 * failure NULL. SB_EPARAMS for a missing or mistyped value, a group given
 * part of its values, a key of the library's, or a URL that would read
 * another way; SB_EINVAL for a NULL `m`, `pattern` or `out`, or a malformed
 * pattern; SB_ETYPE for params that are not a dict; SB_EBADURL for a URL
 * over the length or segment limits. The pattern need not be added. Calls
 * user code (converters). Since 1.1.
 */
SB_API sb_status sb_url_build(sb_mediator *m, const char *pattern, const sb_value *params, char **out);

/* Sets who URLs may reach: `policy` is a dict {"schemes": [...], "targets":
 * [...]}, each an array of strings, or absent or null for "any"; NULL
 * allows everything. The native rule holds regardless. SB_ETYPE for a
 * policy of the wrong shape. */
SB_API sb_status sb_url_set_policy(sb_mediator *m, const sb_value *policy);

/* Signed remote calls. With a key set, every URL `m` opens must end with
 * `expires=<unix seconds>&signature=<64 lower-case hex digits>`: HMAC-SHA256,
 * under the key, of the URL text before "&signature=". It is checked before
 * any interceptor, pattern or target sees the URL; a missing, malformed,
 * wrong or expired signature is SB_EREJECTED (and reaches the URL observer).
 * The two items are removed before the URL is routed. The text is signed
 * exactly as it is sent: sign the URL in the form it will be opened.
 *
 * The HMAC comes from the system's OpenSSL: libcrypto.so.3 (or .so.1.1) is
 * opened the first time a key is given, and only then; without it, these
 * functions fail with SB_EACTION and a message saying so. (Swift's URLSigner
 * computes the same signatures with swift-crypto.)
 *
 * sb_url_require_signature copies `key` (16 to 4096 bytes); a NULL key stops
 * requiring signatures. SB_EINVAL for a NULL mediator or a shorter or longer
 * key (whether or not libcrypto can be loaded). */
SB_API sb_status sb_url_require_signature(sb_mediator *m, const void *key, size_t key_len);

/* `url` with `expires` (unix seconds) and its signature under `key`
 * appended, as a new string (free it with sb_memory_free). NULL, with the last
 * error set, for a NULL key or one outside 16 to 4096 bytes, a NULL or
 * non-UTF-8 URL, a URL with a #fragment, or one that already has `expires`
 * or `signature`. */
SB_API char *sb_url_sign(const void *key, size_t key_len, const char *url, int64_t expires);

/* Sets the observer of refused URL calls (by the URL policy, the signature
 * check, or an action whose contract is local): fn(userdata, {url, reason}, &out)
 * on the calling thread, before the open call returns; its result is
 * discarded. NULL removes it. `free_userdata` as for sb_action_register. */
SB_API sb_status sb_url_set_observer(sb_mediator *m, sb_fn fn, void *userdata, void (*free_userdata)(void *));

/* What `m` can reach: {"targets": [{name, origin, actions, async, cached,
 * contracts}] (async: the actions that answer later, by their contract's
 * `async` or as Swift async closures; contracts: by action, the JSON form),
 * "schemes": [{scheme, connector ("targets", "forward" or "handler"), target?,
 * action?}], "patterns": [{pattern, target, action} or {pattern, handler:
 * true}], "policy": {schemes, targets}, "rules": [rule...],
 * "interceptors": [{id, name, priority, timeout_ms, origin,
 * ignored_decisions}], "observers": count, "degrade_handler": bool,
 * "services": [{name, kind: "interface", actions, contracts, target (null
 * when unbound)} or {name, kind: "protocol", lifetime, made} (Swift's)]}. sb_routes gives a new
 * reference in *out; sb_routes_json the same as JSON, freed with sb_memory_free
 * (NULL if `m` is NULL). */
SB_API sb_status sb_routes(sb_mediator *m, sb_value **out);
SB_API char *sb_routes_json(sb_mediator *m);

/* ------------------------------------------- interceptors, rules, observers */

/*
 * An interceptor sees every call before its target does (perform, URL
 * opens, prepared routes) and decides exactly one of: go on (perhaps with
 * other params, or redirected to another target/action), reject it, or
 * answer it with a value. Interceptors run by priority, higher first, then
 * in the order they were added. With none (and no rule, observer or degrade
 * handler) a call costs what it did before they existed.
 *
 * An interceptor function gets the call as an `sb_call` and returns:
 *   SB_OK                 it has decided with one of the sb_call_ functions
 *                         below, or (if it has not) the call goes on;
 *   SB_INTERCEPT_PENDING  it will decide later, from any thread, with
 *                         exactly one sb_call_ decision. The call waits up
 *                         to the interceptor's timeout (SB_INTERCEPTOR_TIMEOUT_MS
 *                         unless set), then fails with SB_ETIMEOUT naming it.
 *                         A caller that does not wait (sb_action_perform_async
 *                         and the other _async calls) is not held meanwhile:
 *                         its call is pending, and the rest of it (later
 *                         interceptors, the target, `done`) runs on the thread
 *                         that decides, inside that sb_call_ function — or
 *                         fails there at the timeout (the library's watch
 *                         thread) or on cancellation (the cancelling thread);
 *   any other sb_status   it failed: the call fails with that status and a
 *                         message naming the interceptor and sb_error_message().
 * Ownership: the `sb_call` is open until the function has returned and the
 * call is decided, whichever comes later; a pending call must be decided
 * even after its timeout, or its handle leaks. A decision after the timeout
 * returns SB_ETIMEOUT, after a cancellation SB_ECANCELED, a second one
 * while the handle is open SB_EINVAL: each is ignored, and counted in
 * sb_routes ("ignored_decisions"). A handle is a number, never reused, not a
 * pointer to memory: using it after it closed is safe from any thread at any
 * time — a decision then gets SB_EINVAL ("not an open call"; not counted,
 * the interceptor being unknown by then), the accessors below NULL, 0 or
 * an empty dict.
 * An interceptor may perform other calls (they are intercepted too).
 */
typedef struct sb_call sb_call;
typedef int (*sb_interceptor_fn)(void *userdata, sb_call *call);
#define SB_INTERCEPT_PENDING (-1)
#define SB_INTERCEPTOR_TIMEOUT_MS 1000
/* Redirects (by rules and interceptors) one call may take; one more fails
 * it with SB_EREJECTED as a redirect loop. */
#define SB_MAX_REDIRECTS 8

/* Adds an interceptor. `free_userdata` (may be NULL) runs exactly once: when
 * it is removed, when the mediator is freed, or at once if this fails. *id
 * (may be NULL) receives its id: unique in the process (among interceptors
 * and observers of every mediator), so another mediator's id is unknown to
 * this one. Its name is "C interceptor <id>" until
 * sb_interceptor_set_options. SB_EINVAL for a NULL `m` or `fn`;
 * SB_EREJECTED when the mediator holds SB_MAX_HOOKS interceptors already. */
#define SB_MAX_HOOKS 1024 /* interceptors, and observers, a mediator holds */
SB_API sb_status sb_interceptor_add(sb_mediator *m, int priority, sb_interceptor_fn fn, void *userdata,
                                    void (*free_userdata)(void *), uint64_t *id);
/* Removes an interceptor; calls already past it are not affected, and its
 * free_userdata runs once no call still uses it (see "User code" above).
 * SB_ENOTFOUND for an unknown id; SB_EINVAL for a NULL `m`. */
SB_API sb_status sb_interceptor_remove(sb_mediator *m, uint64_t id);
/* Names an interceptor (for messages and sb_routes; copied; NULL keeps the
 * name) and sets how long a pending decision is awaited, in milliseconds (0
 * keeps the timeout). SB_ENOTFOUND for an unknown id; SB_EINVAL for a NULL
 * `m` or a name that is empty or not UTF-8. */
SB_API sb_status sb_interceptor_set_options(sb_mediator *m, uint64_t id, const char *name, unsigned timeout_ms);

/* The call, for interceptors. Strings and params are borrowed from `call`
 * and live while it is open. target/action are where the call goes now
 * (after redirects); sb_call_url is the URL for a call that came from one,
 * else NULL; params are a dict, never NULL. Tags are the caller's
 * (sb_call_options). All tolerate NULL and a handle no longer open. */
SB_API const char *sb_call_target(const sb_call *call);
SB_API const char *sb_call_action(const sb_call *call);
SB_API const char *sb_call_url(const sb_call *call);
SB_API const sb_value *sb_call_params(const sb_call *call);
SB_API size_t sb_call_tag_count(const sb_call *call);
SB_API const char *sb_call_tag(const sb_call *call, size_t i); /* NULL past the end */
SB_API int sb_call_cancelled(const sb_call *call);
/* The name of the interceptor this call is shown to. */
SB_API const char *sb_call_interceptor(const sb_call *call);
/* Asked by the interceptor function, on the thread that shows it the call:
 * 1 when the call's caller waits there for the decision (sb_action_perform,
 * sb_url_open), 0 when it does not (sb_action_perform_async and the other
 * _async calls; a Lua coroutine's sb.perform). A decision that only this
 * thread can make later (an event loop's own) is then possible: return
 * SB_INTERCEPT_PENDING and decide from the loop. For a caller that waits
 * it never comes: fail the call instead (SB_EWOULDBLOCK), as
 * sb_completion_caller_waits tells an action. 1 for NULL or a handle no
 * longer open. Since 1.1. */
SB_API int sb_call_caller_waits(const sb_call *call);

/* Decisions: each returns SB_OK when it decided the call (see above for the
 * ignored ones). Values are borrowed. */
SB_API sb_status sb_call_proceed(sb_call *call);
/* Goes on with `params` (a dict; NULL keeps them) at `target`/`action`
 * (NULL keeps either). Another target or action is a redirect: rules and
 * interceptors run again from the first. SB_EINVAL for an empty or non-UTF-8
 * name, SB_ETYPE for `params` that are not a dict. */
SB_API sb_status sb_call_redirect(sb_call *call, const char *target, const char *action, const sb_value *params);
/* Fails the call with `status` (an error status; others become SB_EREJECTED)
 * and `message` (copied; NULL gives a default naming the interceptor). */
SB_API sb_status sb_call_reject(sb_call *call, sb_status status, const char *message);
/* Answers the call with `value` (NULL answers null); the target is not
 * reached. The answer stands in for the result of the action the call
 * names: when that action's contract declares a result, the call fails with
 * SB_ETYPE if the answer is of another kind (see sb_action_perform). */
SB_API sb_status sb_call_answer(sb_call *call, const sb_value *value);

/* Per-call options for sb_action_perform_opts, sb_action_perform_async and
 * sb_url_open (sb_url_options.call). Refused (SB_EINVAL) for a version they
 * cannot read, an unknown flag, NULL tags with a tag_count, a NULL or
 * non-UTF-8 tag, more than 65,536 tags or more than 64 KiB of tag text in
 * all. Tags are copied: the array may be freed once the call returns. */
typedef struct sb_cancellation sb_cancellation;
typedef struct sb_queue sb_queue; /* a delivery queue: see "Event loops" */
#define SB_BYPASS_INTERCEPTORS 2u /* skip interceptors (when sb_interceptor_allow_bypass allows) */
typedef struct sb_call_options {
    int version;                /* SB_CALL_OPTIONS_VERSION (see "Versioned structs") */
    unsigned flags;             /* SB_CACHE_TARGET | SB_BYPASS_INTERCEPTORS
                                 * (| SB_NO_FALLBACK for sb_action_perform_opts
                                 * and sb_action_perform_async) */
    const char *const *tags;    /* tag_count strings for interceptors and observers */
    size_t tag_count;
    sb_cancellation *cancel;    /* NULL, or a token to cancel the call with */
    unsigned timeout_ms;        /* how long the call waits for an action that answers
                                 * later (SB_ETIMEOUT past it) — for a caller that does
                                 * not wait, for an interceptor's decision too; calls
                                 * made while it runs wait no longer. 0: no timeout of
                                 * its own. */
    sb_queue *queue;            /* version 2: NULL, or the queue that brings `done` to
                                 * its loop's thread (sb_action_perform_async,
                                 * sb_url_open_async, sb_service_perform_async; see
                                 * "Event loops"). SB_EINVAL for a caller that waits
                                 * (sb_action_perform_opts, sb_url_open). */
} sb_call_options;
#define SB_CALL_OPTIONS_VERSION 2
#define SB_CALL_OPTIONS_INIT {SB_CALL_OPTIONS_VERSION, 0, NULL, 0, NULL, 0, NULL}
/* 8u was SB_WITH_TIMEOUT before 1.0 (timeout_ms is read by version now); not reused. */

/* sb_action_perform with options (NULL: none). SB_ECANCELED when the call
 * was cancelled before its target ran; SB_ETIMEOUT when an interceptor did
 * not decide in time. */
SB_API sb_status sb_action_perform_opts(sb_mediator *m, const char *target, const char *action, const sb_value *params,
                                        const sb_call_options *options, sb_value **out);
/* Whether SB_BYPASS_INTERCEPTORS is honoured (default 1). Turn it off when
 * interceptors enforce something no caller may skip. */
SB_API sb_status sb_interceptor_allow_bypass(sb_mediator *m, int allow);

/* Cancellation tokens: thread-safe. sb_cancellation_new returns NULL when out of
 * memory; sb_cancellation_free frees a token (NULL is a no-op) once no call uses it.
 * A running target asks sb_action_cancelled() whether its call was cancelled. */
SB_API sb_cancellation *sb_cancellation_new(void);
SB_API void sb_cancellation_request(sb_cancellation *c);
SB_API int sb_cancellation_requested(const sb_cancellation *c);
SB_API void sb_cancellation_free(sb_cancellation *c);
SB_API int sb_action_cancelled(void);

/*
 * Asynchronous actions. An action that cannot answer before it returns (it
 * waits for a network reply, a user, a worker thread) takes its call's
 * completion and returns SB_PENDING:
 *
 *     static sb_status fetch(void *userdata, const sb_value *params, sb_value **out) {
 *         sb_completion c = sb_completion_take();
 *         start_work(c, ...);            // copies what it needs from params
 *         return SB_PENDING;
 *     }
 *     // later, on any thread:
 *     sb_completion_succeed(c, result);  // or sb_completion_fail(c, status, message)
 *
 * The caller (sb_action_perform and every other way to call: prepared routes, URLs,
 * the Swift and Lua faces) waits on its own thread until the action
 * completes, the call's timeout passes (sb_call_options.timeout_ms:
 * SB_ETIMEOUT) or it is cancelled (SB_ECANCELED); the call then returns as
 * if the action had answered that way. Everything around the action works as
 * for any call: interceptors before it, its contract's result check, the
 * observers' end event (at completion, with the real duration), the depth
 * limit. Do not complete a call on the thread that waits for it: that thread
 * is blocked until the call ends.
 *
 * A completion is an id, never reused. Complete it exactly once, or it leaks
 * (as an interceptor's pending call does). Until then, the action's userdata
 * and the target instance it runs on stay alive even if the action is
 * unregistered or the caller stopped waiting; they are let go after it
 * completes, by a later entry into the library (on any thread), never
 * inside the sb_completion_succeed or sb_completion_fail that completes it
 * — nor inside a `done` it runs there, even one that enters the library or
 * frees the mediator. (Such a `done` may let go of what calls completed
 * before kept, as any entry may.) A call whose `done` goes through a
 * delivery queue (sb_call_options.queue) lets go of them in the
 * sb_queue_dispatch (or sb_queue_free) that runs its `done`, once `done`
 * returned, whether it was completed before or after its action returned
 * and whatever layer (a contract's result type, an observer) saw its
 * answer. A known gap: such a call with a timeout or a cancellation token
 * that its action completes only after it timed out or was cancelled may
 * let go of them at a later entry into the library (on any thread) that
 * comes before its `done` runs, or while it runs (that `done` entering the
 * library itself). A plugin's code stays mapped
 * whatever happens (sb_plugin_load), so its thread may go on after
 * completing.
 */
typedef uint64_t sb_completion;
/* The completion of the call whose action runs on this thread now (the same
 * id if taken again during that action); 0 when no action runs here (outside
 * any call; in an observer, an interceptor, a discoverer, a class's create or
 * destroy, a URL call's completion callback, which run before the call's
 * action or after it has returned). Only an action
 * (registered, of a class or plugin, a scheme or degrade handler) may answer
 * later: an id taken and not returned for with SB_PENDING (the action
 * answered anyway, or it was taken in an observer, interceptor, discoverer or
 * callback) is closed when that action returns or that call ends, and
 * completing it is refused (SB_ENOTFOUND). A callback that returns SB_PENDING,
 * or an action that returns it without taking its completion, fails with
 * SB_EACTION. */
SB_API sb_completion sb_completion_take(void);
/* Completes the call with `value` (stolen, even when refused; NULL answers
 * null). Thread-safe. SB_OK when the caller gets it; SB_ETIMEOUT or
 * SB_ECANCELED when the caller stopped waiting first; SB_ENOTFOUND when the
 * action answered already, or for an id that is not open (completed before,
 * or never taken). The message says which (sb_error_message). The first
 * answer wins: a completion made while its action still runs is the call's
 * answer even if the action then returns a value or a failure of its own
 * instead of SB_PENDING (that return is released), so SB_OK is always true. */
SB_API sb_status sb_completion_succeed(sb_completion c, sb_value *value);
/* Completes the call with a failure: `status` (an error status; any other,
 * and SB_EQUEUED or SB_EWOULDBLOCK, which would not be true of a call that
 * ended, becomes SB_EACTION) and `message` (copied; NULL gives a default).
 * Returns as sb_completion_succeed. */
SB_API sb_status sb_completion_fail(sb_completion c, sb_status status, const char *message);
/* Whether the work may stop: the caller cancelled the call or stopped waiting
 * for it (timed out). A long action polls it; it must still complete the id.
 * 0 for an id that is not open. */
SB_API int sb_completion_cancelled(sb_completion c);

/* Whether whoever made the call of completion `c` waits for it on the thread
 * that took it (a synchronous caller there): a completion only that thread
 * could give would never come. 0 for an id that is not open. */
SB_API int sb_completion_caller_waits(sb_completion c);

/*
 * Callers that do not wait (an event loop's thread, a coroutine). The call
 * runs on the calling thread as sb_action_perform's does (interceptors, contracts,
 * observers, the depth limit, fallbacks); if its action answers later, the
 * call returns at once instead of waiting, and `done` gets the answer when
 * it comes; so does one an interceptor decides later (SB_INTERCEPT_PENDING):
 * the call goes on from that interceptor on the thread that decides. Calls
 * the action makes meanwhile wait as usual.
 */
/* Called exactly once when a call made by the functions below ends:
 * `status`, and for SB_OK `result`, a new reference the callback owns (NULL
 * otherwise; the failure's message is sb_error_message() during the callback).
 * It runs on the thread that ends the call: the calling thread, before the
 * call returns, when the action answered at once; otherwise the thread that
 * completes the action (sb_completion_succeed/fail) or decides an
 * interceptor's pending call (sb_call_proceed...), the one that cancels
 * the call (sb_cancellation_request, before it returns), or the library's watch
 * thread at the call's timeout — keep `done` short there: it delays other
 * calls' timeouts. The observers' end event comes on that thread just
 * before. Callbacks never nest on a thread: a call that `done` starts or
 * ends (and that ends at once) has its own `done` run right after the
 * current one returns, so its starter sees SB_PENDING. `done` must return
 * (no longjmp out of it). It runs inside whatever the ending thread is
 * doing: do not complete a call while holding a lock its `done` takes. */
typedef void (*sb_done_fn)(void *userdata, sb_status status, sb_value *result);
/* sb_action_perform_opts for a caller that does not wait. SB_OK when `done` has
 * run already, on this thread; SB_PENDING when it runs exactly once on
 * another thread — possibly already, before this returns: `userdata` is
 * `done`'s from the call on. SB_EINVAL for a NULL `m` or `done` (`done`
 * never runs). `options` may be NULL. Every other failure (bad names, no
 * target, the action's) reaches `done`. `params` (and what they hold) must
 * not change until `done` runs: observers' end event reads them then. */
SB_API sb_status sb_action_perform_async(sb_mediator *m, const char *target, const char *action,
                                         const sb_value *params, const sb_call_options *options,
                                         sb_done_fn done, void *userdata);
/* sb_url_open for a caller that does not wait; as sb_action_perform_async
 * (`done` stands for the options' completion, which must be NULL). */
SB_API sb_status sb_url_open_async(sb_mediator *m, const char *url, const sb_url_options *options,
                                   sb_done_fn done, void *userdata);
/* sb_route_call for a caller that does not wait; as sb_action_perform_async
 * (SB_EINVAL for a NULL `r` or `done`). */
SB_API sb_status sb_route_call_async(sb_route *r, const sb_value *params, sb_done_fn done, void *userdata);
/* sb_service_perform for a caller that does not wait; as
 * sb_action_perform_async (SB_EINVAL for a NULL `m` or `done`). `flags` as
 * for sb_service_perform; `options` (NULL: none) only for its queue (a
 * service call takes no other option: SB_EINVAL for flags, tags, a token
 * or a timeout there). New after 1.0.0, for 1.1 (symbol version
 * SWITCHBOARD_1.1). */
SB_API sb_status sb_service_perform_async(sb_mediator *m, const char *name, const char *action,
                                          const sb_value *params, unsigned flags, const sb_call_options *options,
                                          sb_done_fn done, void *userdata);

/*
 * Event loops. A program built around a loop (libuv, GLib, epoll, a game's
 * frame loop) wants the answers of its calls on the loop's thread, between
 * two events, as libpq (PQsocket), c-ares and libcurl's multi interface give
 * theirs. A delivery queue does that: the loop watches the queue's
 * descriptor, and when it is readable calls sb_queue_dispatch, which runs
 * the `done` of every call that ended meanwhile, on the loop's thread:
 *
 *     sb_queue *q;
 *     int fd;
 *     sb_queue_new(&q);                    // on the loop's thread
 *     sb_queue_fd(q, &fd);                 // the loop watches fd for reading
 *     sb_call_options o = SB_CALL_OPTIONS_INIT;
 *     o.queue = q;
 *     sb_action_perform_async(m, "Net", "fetch", params, &o, fetched, ctx);
 *     ...                                  // when fd is readable:
 *     sb_queue_dispatch(q, 64, NULL);      // runs fetched(ctx, status, result)
 *
 * (examples/loops has whole hosts for libuv, GLib and a raw epoll loop.)
 *
 * Threads. A queue belongs to the thread that makes it: only that thread
 * dispatches it (elsewhere sb_queue_dispatch runs nothing: SB_EREJECTED),
 * and the `done` of a call made with it runs on that thread only. If the
 * call ends at once (its action answers without SB_PENDING, or the call
 * fails) and was made on that thread (outside any `done` a dispatch runs),
 * `done` runs before sb_action_perform_async returns (SB_OK); otherwise
 * the thread that ends the call (any thread) queues it and the next
 * dispatch runs it (SB_PENDING), even for an action that completed its
 * call before returning SB_PENDING. `done` gets its
 * status, its result and its message (sb_error_message()) as the call
 * ended. Calls made on other threads may use the queue too: their `done`
 * still runs in its dispatch.
 *
 * The descriptor (an eventfd, non-blocking, close-on-exec) is readable
 * while deliveries wait; the loop never reads it itself, nor closes it
 * (sb_queue_free does). A host that closed it anyway loses its wake-ups
 * until it asks sb_queue_fd again (a new one); a file it opened since
 * under the same number is never written, read or closed by the queue. Level-triggered
 * watchers (poll(2), libuv's uv_poll_t, GLib) and edge-triggered ones
 * (epoll's EPOLLET) are both correct: work queued onto an idle queue
 * writes it once, and each dispatch leaves it empty when nothing waits and
 * writes it again when something does (left by `max`, or queued during
 * the dispatch), which is the new edge an edge-triggered loop needs. A
 * dispatch runs at most `max` deliveries and never one queued during it, so
 * a `done` that makes calls ending at once cannot keep the loop from its
 * other sources. Ending a call and dispatching cost the same whatever else
 * waits: one lock, and a system call only when the descriptor changes. A
 * queue keeps up to 32 deliveries that ran (128 bytes each) for the
 * calls after them, so a loop's steady traffic allocates nothing per call;
 * sb_queue_free frees them. Its lock is a futex word, not a pthread mutex:
 * a host built with ThreadSanitizer is told of each taking and giving, so
 * what it hands to a `done` through the queue is not reported as a race.
 *
 * Teardown. sb_queue_free runs on the thread that frees it what still has
 * to come through the queue, so that no `done` of the queue ever runs
 * after it returns: the deliveries waiting, with their answers; then the
 * calls not yet ended, whose `done` gets SB_ECANCELED ("the call's queue
 * was freed"), their calls being cancelled (sb_completion_cancelled says
 * so; a later sb_completion_succeed gets SB_ECANCELED, whether it comes
 * from another thread, from the action before it returns, or from inside a
 * `done`). Each `done` runs exactly once, whatever the order. A completion
 * given before sb_queue_free began was told SB_OK, and its answer is
 * dropped all the same if the call had not ended then (its action still
 * ran): the call's `done` gets SB_ECANCELED. Two cases are left where a
 * completion is told SB_OK and its answer dropped: one given on another
 * thread as the action returns SB_PENDING while a third thread frees the
 * queue (a race), and one given inside a `done` that the library runs
 * directly on a thread of its own or of the host (not through a queue: on
 * a completing, cancelling or deciding thread, or the timeout watcher),
 * for a call whose answer an observer or a contract's result check takes
 * first (they run host code, so they wait for that `done` to return). A call started through the queue once
 * sb_queue_free began (by one of those `done`, say) fails at once with
 * SB_EINVAL, its `done` never run, as for any call whose options are wrong.
 *
 * New after 1.0.0, for 1.1 (symbol version SWITCHBOARD_1.1).
 */
/* The most posts (sb_queue_post) that wait in one queue. */
#define SB_QUEUE_MAX_POSTED 65536
/* A new queue, owned by the calling thread, in *out (free it with
 * sb_queue_free). SB_EINVAL for a NULL `out`, SB_ENOMEM. */
SB_API sb_status sb_queue_new(sb_queue **out);
/* The queue's descriptor, in *out (-1 on failure): made on first use, the
 * same every time after, closed by sb_queue_free; a child of fork gets a
 * new one, and so does a host that closed it. SB_EINVAL for a NULL argument; SB_ENOMEM when no descriptor can
 * be made (the process's limit). Thread-safe. */
SB_API sb_status sb_queue_fd(sb_queue *q, int *out);
/* Runs, on the calling thread, at most `max` of the deliveries waiting now
 * (SIZE_MAX: all of them), in the order they were queued; *out (if not
 * NULL) gets how many ran. Then the descriptor tells the truth again (see
 * above). A `done` it runs may call any sb_ function, dispatch again or
 * free the queue. SB_EINVAL for a NULL `q`; SB_EREJECTED, nothing run, on
 * a thread that does not own the queue. Never waits. Calls user code. */
SB_API sb_status sb_queue_dispatch(sb_queue *q, size_t max, size_t *out);
/* Queues fn(userdata) to run in the queue's dispatch, from any thread:
 * the loop's own way to hand it work (like uv_async_send, at one call per
 * post). SB_EINVAL for a NULL `q` or `fn`; SB_ENOMEM; SB_EREJECTED when
 * SB_QUEUE_MAX_POSTED posts wait already. `fn` runs exactly once: in a
 * dispatch, or in sb_queue_free. */
SB_API sb_status sb_queue_post(sb_queue *q, void (*fn)(void *userdata), void *userdata);
/* How many `done` and posts are still to run through the queue: calls not
 * yet ended, and deliveries waiting. A loop that should end when its calls
 * have (libuv's ref/unref) reads it after each dispatch. 0 for NULL. */
SB_API size_t sb_queue_pending(const sb_queue *q);
/* Frees the queue (NULL: nothing), after running what is left as said
 * above: on the calling thread, which may be any. Calls user code. */
SB_API void sb_queue_free(sb_queue *q);

/*
 * Rules, as a JSON array, replacing the current ones at once (a call sees
 * the old set or the new one). Each rule is one of:
 *   {"from": "app://old*", "to": "app://new$1"}    rewrites URLs before they resolve
 *   {"from": "Old*", "to": "New$1"}                rewrites "target/action" of every call
 *   {"target": "Pay", "action": "*", "degrade": "Web", "degrade_action": "response"}
 *       when nothing answers a matching call, that action answers instead,
 *       with NoTargetAction's params (degrade_action defaults to "response").
 * `*` matches any run of characters; $1..$9 are what the stars matched. The
 * first matching rule wins; rewritten calls are matched again (see
 * SB_MAX_REDIRECTS). SB_EINVAL with the rule's number and problem for bad
 * JSON or a bad rule; nothing changes then. "[]" removes all rules.
 */
SB_API sb_status sb_rules_set_json(sb_mediator *m, const char *json);

/* Sets the degrade handler: it answers calls nothing else answers (after
 * the degrade rules and NoTargetAction), getting NoTargetAction's params.
 * NULL `fn` removes it. `free_userdata` as for sb_action_register. */
SB_API sb_status sb_degrade_handler_set(sb_mediator *m, sb_fn fn, void *userdata, void (*free_userdata)(void *));
/* Removes the degrade handler only if it is still `fn` with `userdata` (see
 * sb_action_unregister_if). SB_ENOTFOUND if it is not (or there is none);
 * SB_EINVAL for a NULL `m` or `fn`. Calls user code (destructors). */
SB_API sb_status sb_degrade_handler_clear_if(sb_mediator *m, sb_fn fn, const void *userdata);

/* Observers: told when each call starts and ends, on the calling thread, in
 * the order they were added. Everything in the event is borrowed for the
 * length of the observer call. target/action are NULL for a URL that has not
 * resolved; url is NULL for local calls. A call an observer makes runs but is
 * not shown to observers (each of its events would start two more calls),
 * and neither is a call refused for its depth (SB_MAX_CALL_DEPTH). The
 * library fills the event: read a field added after version 1 only if
 * `event->version` is at least the version that added it (see "Versioned
 * structs"). */
typedef enum sb_call_phase { SB_CALL_START = 0, SB_CALL_END = 1 } sb_call_phase;
typedef struct sb_call_event {
    int version;             /* SB_CALL_EVENT_VERSION of the library that made it */
    sb_call_phase phase;
    const char *target;
    const char *action;
    const char *url;
    const char *const *tags; /* the caller's tags (sb_call_options), tag_count of
                              * them; NULL when there are none */
    size_t tag_count;
    sb_status status;        /* SB_CALL_END: how it ended */
    const char *message;     /* SB_CALL_END on failure: why; else NULL */
    uint64_t duration_ns;    /* SB_CALL_END: from start to end */
    const sb_value *params;  /* the params (at end: as the target got them) */
    const sb_value *result;  /* SB_CALL_END on success; else NULL */
} sb_call_event;
#define SB_CALL_EVENT_VERSION 1
typedef void (*sb_observer_fn)(void *userdata, const sb_call_event *event);
/* `free_userdata` and *id as for sb_interceptor_add; SB_EREJECTED when the
 * mediator holds SB_MAX_HOOKS observers already. sb_observer_remove removes
 * one: SB_ENOTFOUND for an unknown id, SB_EINVAL for a NULL `m`. */
SB_API sb_status sb_observer_add(sb_mediator *m, sb_observer_fn fn, void *userdata,
                                 void (*free_userdata)(void *), uint64_t *id);
SB_API sb_status sb_observer_remove(sb_mediator *m, uint64_t id);

/* ------------------------------------------------------------ discoverers */

/*
 * A discoverer finds targets nobody registered: it is called when a call
 * names a target that `m` does not know (after Swift classes and plugins),
 * registers the target's actions with sb_action_register, and returns SB_OK;
 * or returns SB_ENOTARGET when it has nothing under that name. Any other
 * status fails the call that triggered the search, with that status and
 * sb_error_message(). It runs on the calling thread with no lock held, may run
 * on several threads at once, and may call any sb_ function. A search for a
 * name in progress on a thread is not started again on that thread: a call
 * the discoverer makes to the very target it is asked for fails with
 * SB_EREJECTED ("discovery loop"); and a name searched in vain is not
 * searched again on that thread until the outermost search there ends, so
 * a chain of searches costs one search per name. (The Lua module finds
 * Target_<Name>.lua files this way.)
 */
typedef sb_status (*sb_discoverer_fn)(void *userdata, sb_mediator *m, const char *target);

/* Adds a discoverer, asked after those added before it; the search for a
 * name ends at the first discoverer that registers it (a later one is not
 * asked, so it cannot replace what the first registered). `free_userdata`, if
 * not NULL, runs exactly once: when the discoverer is removed, when the
 * mediator is freed, or at once if this fails. *id (which may be NULL)
 * receives a number for sb_discoverer_remove. SB_EINVAL for a NULL `m` or
 * `fn`. Calls user code only on failure. */
SB_API sb_status sb_discoverer_add(sb_mediator *m, sb_discoverer_fn fn, void *userdata,
                                   void (*free_userdata)(void *), uint64_t *id);

/* Removes a discoverer; what it registered stays registered. SB_ENOTFOUND
 * for an unknown id; SB_EINVAL for a NULL `m`. Calls user code (free_userdata, once no search still uses
 * the discoverer). */
SB_API sb_status sb_discoverer_remove(sb_mediator *m, uint64_t id);

/* --------------------------------------------------------------- plugins */

/* An element of a table's action list; its layout is fixed by the version
 * of the sb_target_def that points to it. */
typedef struct sb_action_def {
    const char *name;
    sb_fn fn;
} sb_action_def;

/* An element of a table's contract list: gives `action` a contract (the
 * syntax of sb_action_register_contract). Its layout is fixed by the
 * version of the sb_target_def it belongs to. */
typedef struct sb_contract_def {
    const char *action;
    const char *contract;
} sb_contract_def;

/*
 * What a plugin exports as `const sb_target_def Target_<Name>`:
 *
 *     static const sb_action_def a_actions[] = {{"showAlert", show_alert}, {NULL, NULL}};
 *     static const sb_contract_def a_contracts[] = {
 *         {"showAlert", "message: string, confirm: callback? -> bool"},
 *         {NULL, NULL}};
 *     const sb_target_def Target_A = {
 *         .version = SB_TARGET_DEF_VERSION, .create = a_create, .destroy = a_destroy,
 *         .actions = a_actions, .contracts = a_contracts};
 *
 * Versions (see "Versioned structs"). Version 1, {version, create,
 * destroy, actions}, is also the table of plugins built before 1.0 (their
 * first member, `abi_version`, holds SB_ABI_VERSION: 1); contracts come from
 * a separate `const sb_contract_def Contracts_<Name>[]` export, which is
 * read for version 1 only. Version 2 adds `contracts`, so one table says
 * everything: a version-2 plugin that also exports Contracts_<Name> is
 * refused, so that a target's contracts have one source. A contract table
 * names each action at most once. Only tables the plugin file defines
 * itself are read, not those of libraries it links.
 */
typedef struct sb_target_def {
    int version;                         /* SB_TARGET_DEF_VERSION */
    void *(*create)(void);               /* the target's state, or NULL; may itself be NULL */
    void (*destroy)(void *state);        /* may be NULL */
    const sb_action_def *actions;        /* ends with {NULL, NULL} */
    const sb_contract_def *contracts;    /* version 2: NULL, or some of the actions'
                                          * contracts, ending with {NULL, NULL} */
} sb_target_def;
#define SB_TARGET_DEF_VERSION 2
#define SB_TARGET_DEF_INIT {SB_TARGET_DEF_VERSION, NULL, NULL, NULL, NULL}

/* Loads the plugin at `path` into `m`; its Target_<Name> tables become
 * reachable by name. A plugin belongs to the mediator that loaded it: when
 * that mediator is freed, its targets go and their states are destroyed.
 * Its code is never unloaded (it is opened RTLD_NODELETE): a thread the
 * plugin started may still run plugin code after its last call ended (every
 * thread that completes a call returns into plugin code), so a plugin may
 * keep threads and timers running past its mediator safely, and loading the
 * same file into another mediator later maps nothing new. Loading the same
 * path twice into one mediator is SB_OK and loads it once.
 * SB_EINVAL (with a message naming the plugin) if the path is not UTF-8, if
 * the file is missing or not a loadable shared object, or if one of its
 * Target_ tables has a version this library cannot read, is smaller than
 * its version's layout, has a NULL action list or an action without a name
 * or function, or if its contracts (inline, or Contracts_<Name> for
 * version 1) name an action its target lacks or hold a contract that does
 * not parse, or if a version-2 table comes with a Contracts_<Name> too, or
 * if it defines a Target_<Name> that a plugin already loaded into `m`
 * defines (the message names both).
 * Works when libswitchboard.so itself was loaded with RTLD_LOCAL. */
SB_API sb_status sb_plugin_load(sb_mediator *m, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* SWITCHBOARD_H */
