/* Private to the Lua module. See switchboard_lua.h for what it promises. */
#ifndef SB_LUA_INTERNAL_H
#define SB_LUA_INTERNAL_H

#include <pthread.h>
#include <sys/types.h>

#include <lauxlib.h>
#include <lua.h>

#include "switchboard.h"
#include "switchboard_lua.h"

/* Registry names of the module's metatables. */
#define SB_LUA_CONTEXT "switchboard.context" /* the per-module context box */
#define SB_LUA_VALUE "switchboard.value"     /* a C value (callback, pointer) in Lua */

typedef struct sb_lua_ctx sb_lua_ctx;
typedef struct sb_lua_fn sb_lua_fn;
typedef struct sb_lua_item sb_lua_item;
typedef struct sb_lua_waiter sb_lua_waiter;
typedef struct sb_lua_conv sb_lua_conv;

/* A call of a Lua function queued from another thread: it runs at the
 * owner's next dispatch (sb.poll, or sb_queue_dispatch of the state's
 * queue). A release: a registry reference to drop, on the owner's stack of
 * them (ctx->releases). */
struct sb_lua_item {
    sb_lua_item *next;     /* a release's, on the stack */
    sb_lua_ctx *ctx;       /* a queued call's: one reference */
    sb_lua_fn *fn;         /* a queued call (one reference) */
    char *field;           /* NULL, or the action of the instance `fn` is (discover.c) */
    sb_value *args;        /* the call's args (one reference), or NULL */
    sb_completion c;       /* the call's completion (an action's), or 0 (a callback's) */
    int ref;               /* a release: the registry reference to drop */
};

/* What a state's close must do for an object Lua may never finalize: Lua
 * runs no finalizer for an object made while the state closes (a __gc
 * finalizer, or a C `done` the close runs, can make one), so each object
 * whose __gc answers a call or lets go of C memory is also on its
 * context's list, and the close runs what is left on it. __gc takes the
 * object off first (sb_lua_closer_remove); either way it runs once. */
typedef struct sb_lua_closer sb_lua_closer;
struct sb_lua_closer {
    sb_lua_closer *prev, *next; /* NULL once off the list */
    void (*close)(lua_State *L, sb_lua_closer *self);
};

/*
 * One module table's state, shared with everything that can outlive the Lua
 * state: Lua functions handed to C (sb_lua_fn) and the discoverer hold a
 * reference each. Fields marked (owner) are touched only on the owning
 * thread; the others under `lock`.
 */
struct sb_lua_ctx {
    pthread_mutex_t lock;
    long refs;                /* (lock) */
    int closed;               /* (lock) set once, when the state closes it */
    sb_queue *queue;          /* the state's delivery queue (switchboard.h, "Event loops"):
                                 the `done` of its calls (coroutines to resume, callbacks
                                 of sb.perform_async) and the calls other threads queue
                                 (at most SB_LUA_MAX_QUEUED: `queued`); its descriptor is
                                 sb.fd(), its dispatch sb.poll() */
    long queued;              /* (lock) calls from other threads waiting in it */
    sb_lua_item *releases;    /* (lock to write) references to drop; read alone as a hint */
    int release_posted;       /* (lock) a post will drop them */
    sb_lua_closer closers;    /* (owner) the list's head: objects the close finalizes
                                 if Lua does not */
    long waiting;             /* (owner) calls whose answer is still to be delivered
                                 (suspended coroutines, sb.perform_async callbacks) */
    long ran;                 /* (owner) deliveries that ran Lua code (sb.poll counts them) */
    long counted;             /* (owner) of them, those an sb.poll() counted */
    int errors_ref;           /* (owner) errors raised after a suspension, for the next
                                 sb.poll(); LUA_NOREF when none */
    long errors, dropped;     /* (owner) how many it holds; how many more were dropped */

    pthread_t owner;          /* the thread that opened the module */
    lua_State *L;             /* (owner) the state's main thread */
    lua_State *active;        /* (owner) the coroutine inside the innermost module call */
    sb_mediator *m;
    int module_ref;           /* (owner) the module table, for sb.path */
    int orders_ref;           /* (owner) the key orders of tables made from dicts
                                 (convert.c), LUA_NOREF until the first one */
    uint64_t discoverer;      /* the id of the sb.path discoverer, 0 if none */
    /* (owner) the actions this state registered, each with its function (one
     * reference each, so no other registration can take its address while
     * it is remembered): closing the state removes each one that is still
     * registered with that function, and nothing another owner put there. */
    struct sb_lua_registration {
        char kind;          /* SB_LUA_ACTION, SB_LUA_SCHEME_HANDLER, SB_LUA_ROUTE_HANDLER, SB_LUA_CLASS,
                               SB_LUA_FALLBACK_HANDLER, SB_LUA_CONVERTER */
        char *target;       /* the target; the scheme (lower case; "*" for every scheme's fallback);
                               the pattern; the converter's type */
        const char *action; /* (inside target's allocation) "" for a handler */
        sb_lua_fn *fn;
    } *registrations;
    size_t nregistrations, cregistrations;
    sb_lua_fn *degrade;       /* (owner) the degrade handler this state set last (one reference), or NULL */
    struct sb_lua_hook { char kind; uint64_t id; } *hooks; /* (owner) interceptors ('i'),
                                 observers ('o') this state added */
    size_t nhooks, chooks;
    /* (owner) names (by the address of their Lua strings) whose last
     * sb.perform could not be made directly (direct.c): the next calls take
     * the general path at once, and one in SB_LUA_DIRECT_RETRY tries again.
     * Only a matter of speed: the general path answers every call the same. */
    struct sb_lua_miss { const char *target, *action; unsigned skip; } direct_misses[16];
};
#define SB_LUA_DIRECT_RETRY 256

/* A Lua function handed to C as an sb_fn's userdata: a callback or an action. */
struct sb_lua_fn {
    sb_lua_ctx *ctx; /* one reference */
    long refs;       /* (ctx->lock) the C value owning it, plus queued calls */
    int ref;         /* (owner) the function, in the registry */
    size_t record;   /* (ctx->lock) 1 + its index in ctx->registrations while
                        the mediator holds it as a registration, else 0 */
};

/* context.c */
sb_lua_ctx *sb_lua_ctx_of(lua_State *L);    /* the module's context (upvalue 1) */
void sb_lua_ctx_release(sb_lua_ctx *ctx);
int sb_lua_on_owner(const sb_lua_ctx *ctx);
lua_State *sb_lua_running(sb_lua_ctx *ctx); /* where to call Lua from C now */
/* sb_lua_protected in two steps, for a call with more arguments: _begin
 * pushes the message handler, fn and ud (3 slots); the caller pushes more
 * arguments; _end calls fn(ud, ...) with `handler` the message handler's
 * index, leaving nresults on success, and the stack below the handler on
 * a Lua error (its message in sb_error_set). */
void sb_lua_protected_begin(lua_State *L, lua_CFunction fn, void *ud);
sb_status sb_lua_protected_end(sb_lua_ctx *ctx, lua_State *L, int handler, int nresults);
/* Runs fn(ud) protected on L, as the state's running thread, under a
 * traceback handler; the stack is left as it was. On a Lua error: the
 * message in sb_error_set and SB_EACTION (SB_ENOMEM for memory). */
sb_status sb_lua_protected(sb_lua_ctx *ctx, lua_State *L, lua_CFunction fn, void *ud);
/* What this state registered and the mediator still holds: an action of a
 * target, a scheme's handler or a pattern's handler, with its function.
 * Called before registering `fn` (0 when out of memory: then do not
 * register it). The record goes when the mediator lets go of `fn`
 * (sb_lua_fn_free: replaced by anyone, unregistered, or a registration that
 * failed), so each lookup and removal is O(1) and closing the state removes
 * exactly what it still owns. */
#define SB_LUA_ACTION 'a'
#define SB_LUA_SCHEME_HANDLER 's'
#define SB_LUA_ROUTE_HANDLER 'r'
#define SB_LUA_CLASS 'c' /* a Target_<Name>.lua constructor (discover.c); action "" */
#define SB_LUA_FALLBACK_HANDLER 'u' /* an unmatched-URL fallback: by scheme in lower case, "*" for every scheme */
#define SB_LUA_CONVERTER 'k'        /* a URL converter, by type */
int sb_lua_remember(sb_lua_ctx *ctx, char kind, const char *target, const char *action, sb_lua_fn *fn);
/* The degrade handler this state has set (NULL: it removed it). */
void sb_lua_remember_degrade(sb_lua_ctx *ctx, sb_lua_fn *fn);
/* Drops the references other threads released: one atomic load when
 * there are none, so every entry may call it. */
void sb_lua_drop_released_slow(lua_State *L, sb_lua_ctx *ctx);
static inline void sb_lua_drop_released(lua_State *L, sb_lua_ctx *ctx) {
    if (__atomic_load_n(&ctx->releases, __ATOMIC_ACQUIRE) != NULL) sb_lua_drop_released_slow(L, ctx);
}
/* (owner) Puts `c` on the context's list / takes it off (if on it). */
void sb_lua_closer_add(sb_lua_ctx *ctx, sb_lua_closer *c, void (*close)(lua_State *L, sb_lua_closer *self));
void sb_lua_closer_remove(sb_lua_closer *c);
/* Hooks this state added, removed when it closes. */
void sb_lua_remember_hook(sb_lua_ctx *ctx, char kind, uint64_t id);
void sb_lua_forget_hook(sb_lua_ctx *ctx, char kind, uint64_t id);
/* Whether this state added the hook (and has not removed it). */
int sb_lua_owns_hook(const sb_lua_ctx *ctx, char kind, uint64_t id);
int sb_lua_close(lua_State *L);             /* __gc of the context box */
/* A Lua function as a callback (observers, interceptors, values). */
sb_status sb_lua_fn_call(void *userdata, const sb_value *args, sb_value **out);
/* A Lua function registered to answer calls (an action, a scheme, route or
 * degrade handler): on another thread, a call whose caller may get a later
 * answer is queued with its completion and answered from the owner's
 * dispatch; otherwise as sb_lua_fn_call. */
sb_status sb_lua_action_call(void *userdata, const sb_value *args, sb_value **out);
/* Records an error raised after a suspension (a resumed coroutine, an
 * sb.perform_async callback, a queued call) for the next sb.poll(): the
 * message is the Lua string at idx, or `text` when idx is 0. (owner) */
void sb_lua_record_error(lua_State *L, sb_lua_ctx *ctx, int idx, const char *text);
/* Calls `action` of the table `instance` holds (a target instance made by a
 * file's constructor, discover.c): only on the owner thread (SB_EREJECTED
 * elsewhere); the sb_fn contract for *out. */
sb_status sb_lua_call_action(sb_lua_fn *instance, const char *action, const sb_value *args, sb_value **out);
void sb_lua_fn_free(void *userdata);
sb_lua_fn *sb_lua_fn_new(sb_lua_ctx *ctx, lua_State *L, int idx);
int sb_lua_poll(lua_State *L, sb_lua_ctx *ctx, lua_Integer max);

/* await.c: calls from a coroutine, without blocking the thread, and
 * sb.perform_async's callbacks. */
/* 1 when a call made on L now may suspend L instead of waiting. */
int sb_lua_may_yield(lua_State *L, sb_lua_ctx *ctx);
/* What a suspended call is (how it is made, and what its answer does). */
typedef enum sb_lua_call_kind {
    SB_LUA_CALL_PERFORM = 0, /* sb_action_perform_async(target, action) */
    SB_LUA_CALL_URL = 1,     /* sb_url_open_async(url) */
    SB_LUA_CALL_SERVICE = 2, /* sb_service_perform_async(target: the service, action) */
} sb_lua_call_kind;
/* Before the params are converted (it may raise): a new waiter for a call
 * from L, owned by a box it pushes. `completion` (a stack index, or 0): a
 * function sb.open calls with the outcome before it returns. */
sb_lua_waiter *sb_lua_waiter_new(lua_State *L, sb_lua_ctx *ctx, int completion);
/* Makes the call (params released and conv, if not NULL, uncharged once
 * it is made; options may be NULL) with its `done` coming through the
 * state's queue; returns as sb.perform does, at once or, when the call ends
 * later, after suspending L until the dispatch resumes it. Raises nothing
 * before the call. Called as a lua_CFunction's tail:
 * `return sb_lua_perform_yielding(...)`. */
int sb_lua_perform_yielding(lua_State *L, sb_lua_waiter *w, sb_lua_call_kind kind, const char *target,
                            const char *action, const char *url, sb_value *params, const sb_call_options *options,
                            sb_lua_conv *conv);
/* sb.perform_async(target, action, params, fn [, opts]). */
int sb_lua_perform_async(lua_State *L);
/* How many calls' answers are still to be delivered (sb.pending()). */
long sb_lua_pending_count(sb_lua_ctx *ctx);
/* Call options with the state's queue: for every call made through await.c. */
void sb_lua_queued_options(sb_lua_ctx *ctx, const sb_call_options *given, sb_call_options *out);

/* later.c: sb.later(fn), and its answer from an action (protected_call). */
#define SB_LUA_LATER "switchboard.later"
int sb_lua_later(lua_State *L);
/* Called in protected mode with the sb.later object at idx, returned by
 * an action: takes the call's completion (or uses `c`, the completion of a
 * call queued from another thread, when it is not 0) and calls
 * fn(complete). Returns SB_PENDING, or a failure with its message set. */
sb_status sb_lua_later_start(lua_State *L, int idx, sb_completion c);

/* charge.c: memory the library holds on the state's behalf, reported to
 * the host's sb_lua_set_charge function (estimates; see charge.c). */
#define SB_LUA_CONVERT_VALUE_COST 64 /* a value converted from Lua, beside its bytes */
#define SB_LUA_CONVERT_KEY_COST 32   /* a dict key, beside its bytes */
#define SB_LUA_CHARGE_STEP 65536     /* a conversion charges as it grows, by this much */
#define SB_LUA_REGISTRATION_COST 512 /* a registered target or route, beside its names */
#define SB_LUA_ACTION_COST 256       /* an action of a registered target */
#define SB_LUA_NAME_COPIES 4         /* copies the library keeps of a target's name */
#define SB_LUA_WAIT_COST 1024        /* a call from a coroutine (await.c): its waiter, and the
                                        library's open call, while the coroutine lives */
/* The most a conversion from Lua may cost, counted as above with every
 * table counted each time it is met (a table held twice converts twice):
 * 256 MiB. Past it the conversion fails, so a small table that shares a
 * subtable at every level cannot expand into gigabytes. */
#define SB_LUA_MAX_CONVERSION ((size_t)256 << 20)
/* 1, or 0 when the host refused the charge (bytes < 0 give memory back). */
int sb_lua_charge(lua_State *L, long long bytes);
/* The kinds of what is charged by name: each kind's names are apart. */
#define SB_LUA_CHARGE_TARGET 't'
#define SB_LUA_CHARGE_PATTERN 'p'     /* a route pattern (to a target or a handler) */
#define SB_LUA_CHARGE_SCHEME 's'      /* in lower case, as the mediator keeps it */
#define SB_LUA_CHARGE_INTERCEPTOR 'i' /* by id */
#define SB_LUA_CHARGE_OBSERVER 'o'    /* by id */
#define SB_LUA_CHARGE_RULES 'r'       /* the one set of rules: name "" */
#define SB_LUA_CHARGE_POLICY 'u'      /* the one URL policy: name "" */
#define SB_LUA_CHARGE_SERVICE 'v'     /* a service's interface, by the service's name */
#define SB_LUA_CHARGE_BINDING 'b'     /* a service's binding, by the service's name */
#define SB_LUA_CHARGE_FALLBACK 'f'    /* an unmatched-URL fallback, as SB_LUA_FALLBACK_HANDLER names it */
#define SB_LUA_CHARGE_CONVERTER 'k'   /* a URL converter, by type */
/* Charges `bytes` for `kind`'s registered `name` (added to what it was
 * charged), remembered until sb_lua_uncharge_name gives it all back. 0 if
 * refused (nothing charged). May raise a memory error before charging. */
int sb_lua_charge_name(lua_State *L, char kind, const char *name, long long bytes);
void sb_lua_uncharge_name(lua_State *L, char kind, const char *name);
/* sb_lua_charge_name, raising the memory error when refused. */
void sb_lua_charge_or_raise(lua_State *L, char kind, const char *name, long long bytes);
/* The same for what replaced what `name` held: its old charge goes first. */
void sb_lua_recharge_or_raise(lua_State *L, char kind, const char *name, long long bytes);

/* convert.c: values across the border.
 *
 * Lua -> C builds top-down, so everything built so far hangs off `root`, or
 * waits in `entries`: a dict's values are converted in the order lua_next
 * gives and go into the dict together, in the dict's order, once all are
 * converted. It returns the value (and clears `root`), or NULL with a
 * message in `error`, leaving `root` for the caller to release. It allocates
 * no Lua memory (so it cannot raise) unless it meets a function with
 * `allow_functions` set, whose registry reference can fail with a memory
 * error; callers that allow functions run it in protected mode and call
 * sb_lua_conv_abandon if it raises (which releases `root` and the pending
 * entries). */
typedef struct sb_lua_entry {
    const char *key; /* a key of the table being converted, alive while it is */
    size_t length;
    sb_value *value; /* owned here until it goes into its dict */
    char *copy;      /* the key's own copy (key points to it), when the table
                        may drop it during the conversion (weak values); or NULL */
} sb_lua_entry;

struct sb_lua_conv {
    sb_lua_ctx *ctx;
    int allow_functions;
    int met_function;  /* a function made a no-functions conversion fail */
    int keep_charge;   /* the charge stays after a conversion that succeeds
                          (sb_lua_to_value_charged) */
    size_t cost;       /* the conversion so far (see SB_LUA_MAX_CONVERSION) */
    size_t charged;    /* what of it was charged (sb_lua_charge) */
    size_t next;       /* the cost from which account() must charge or check the maximum */
    sb_value *root;
    char error[256];
    const void *path[SB_MAX_DEPTH]; /* tables being converted, to find cycles */
    /* Values converted but not yet in their dict: a stack shared by the dicts
     * being filled, in `inline_entries` or, when larger, on the heap. */
    sb_lua_entry *entries;
    size_t entry_count, entry_capacity;
    sb_lua_entry inline_entries[8];
};
sb_value *sb_lua_to_value(lua_State *L, int idx, sb_lua_conv *conv);
/* A call of a Lua function as an sb_fn (context.c), in protected mode. */
typedef struct sb_lua_call_frame {
    sb_lua_ctx *ctx;
    int ref;
    const char *field; /* NULL: call ref; else the action `field` of the table ref */
    const sb_value *args;
    sb_value *result;
    int keep_scalar;  /* a result that would come back as itself stays on the stack */
    sb_completion c;  /* a queued call's completion, for sb.later (0: take it) */
    sb_lua_conv conv; /* conv.root: a result being converted, released on failure */
    sb_status status;
} sb_lua_call_frame;
void sb_lua_call_frame_init(sb_lua_call_frame *f, sb_lua_ctx *ctx, int ref);
/* With the function and its one argument pushed: calls it and takes what
 * it returned as a called action's answer (f->status, f->result); with
 * f->keep_scalar, a result that sb_lua_push_result would make equal to
 * itself (nil as sb.null) is pushed instead, and 1 returned. May raise. */
int sb_lua_call_pushed(lua_State *L, sb_lua_call_frame *f);
/* direct.c: sb.perform to a Lua action of this state, without C values:
 * what sb.perform returns, or -1 (nothing done) for the general path. */
int sb_lua_perform_direct(lua_State *L, sb_lua_ctx *ctx, const char *target, const char *action);
/* After a conversion raised (in protected mode): releases `root` and the
 * pending entries. Safe on a zeroed struct and after a conversion ended. */
void sb_lua_conv_abandon(sb_lua_conv *conv);
/* The same from a Lua C function: tries without functions, and redoes the
 * conversion in protected mode if it met one. NULL with conv->error on bad
 * input; re-raises memory errors after releasing what was built. */
sb_value *sb_lua_to_value_safely(lua_State *L, int idx, sb_lua_conv *conv);
/* The same, and what the value costs stays charged to the host's budget
 * until sb_lua_conv_uncharge (after the value is released). */
sb_value *sb_lua_to_value_charged(lua_State *L, int idx, sb_lua_conv *conv);
/* The params argument at idx of a call (a table, or nil or none: NULL),
 * converted and left charged until sb_lua_conv_uncharge(L, conv) once the
 * call returns. Raises an argument error when it cannot cross to C. */
sb_value *sb_lua_check_params(lua_State *L, sb_lua_ctx *ctx, int idx, sb_lua_conv *conv);
void sb_lua_conv_uncharge(lua_State *L, sb_lua_conv *conv);
/* An optional table argument at idx (nil or none: NULL) as a new value, not
 * charged; `cost` (if not NULL) gets what its conversion cost, 0 for none.
 * Raises an argument error for anything else, or one that cannot cross to C. */
sb_value *sb_lua_opt_table(lua_State *L, sb_lua_ctx *ctx, int idx, size_t *cost);
/* Pushes `v` (consumed: released here, also if pushing raises). */
void sb_lua_push_result(lua_State *L, sb_lua_ctx *ctx, sb_value *v);
extern const char sb_lua_null; /* sb.null is its address */
void sb_lua_push_value(lua_State *L, sb_lua_ctx *ctx, const sb_value *v, int depth); /* may raise */
void sb_lua_push_array_mt(lua_State *L);

/* value.c: C callbacks and pointers as Lua values. */
/* Retains v; the module `ctx` (if not NULL) releases it at its close if
 * Lua has not collected it (sb_lua_closer). */
void sb_lua_push_cvalue(lua_State *L, sb_lua_ctx *ctx, sb_value *v);
sb_value *sb_lua_test_cvalue(lua_State *L, int idx); /* borrowed, or NULL */
void sb_lua_value_metatable(lua_State *L);

/* discover.c: Target_<Name>.lua files on sb.path. */
sb_status sb_lua_discover(void *userdata, sb_mediator *m, const char *target);
int sb_lua_register_table(lua_State *L, sb_lua_ctx *ctx, const char *name, int idx, char *error, size_t size);

/* contract.c: the contract of an action spec table {fn =, params =, result =,
 * exposure =}, checked; free() it. NULL with `error` set. */
char *sb_lua_contract(lua_State *L, sb_lua_ctx *ctx, const char *action, int spec, char *error, size_t size);

/* hooks.c: sb.intercept, sb.observe, sb.rules, sb.degrade, cancellation. */
extern const luaL_Reg sb_lua_hook_functions[];
/* Reads perform/open options at `idx` (nil or a table: cache, bypass, tags,
 * cancel). Returns whether any needs sb_*_opts; may leave values on the
 * stack that `o` points into, for the length of the call. */
int sb_lua_call_options(lua_State *L, int idx, sb_call_options *o);

/* services.c: sb.service, sb.bind_service, sb.perform_service, sb.remove_service. */
extern const luaL_Reg sb_lua_service_functions[];

/* urls.c: sb.lookup, sb.build_url, sb.unmatched, sb.converter,
 * sb.remove_url_patterns (upvalue 1: the context box). */
extern const luaL_Reg sb_lua_url_functions[];

/* util.c: the helpers every file calls (status names, metatable locking,
 * the failure triple); it calls nothing else of the glue. */
/* Every metatable the module makes is locked when it is made: its
 * __metatable field (set here to `what`, on the table at the top of the
 * stack) is what getmetatable answers, so no script can reach the table to
 * give the module's objects a finalizer (Lua registers __gc when the module
 * calls lua_setmetatable, and runs finalizers with hooks off) or replace
 * their methods. The C value's metatable answers with a copy of its public
 * part instead (value.c), so code can still tell a callable value. */
void sb_lua_lock_metatable(lua_State *L, const char *what);
int sb_lua_push_failure(lua_State *L, sb_status status); /* nil, message, code */
const char *sb_lua_status_name(sb_status status);
sb_status sb_lua_status_from_name(const char *name);
/* A name argument: a non-empty string without NUL bytes (raises otherwise). */
const char *sb_lua_check_name(lua_State *L, int arg);
/* A text argument (a URL, a scheme, a type): non-empty, no NUL bytes;
 * `what` is the message for an empty one. */
const char *sb_lua_check_text(lua_State *L, int arg, const char *what);
/* pin.c: keeps the module and libswitchboard loaded past lua_close. */
void sb_lua_pin_libraries(void);

#endif
