/*
 * switchboard_lua.h — the Switchboard Lua module, for C hosts that embed Lua.
 *
 * `lua5.4` loads the module with `require "switchboard"` (luaopen_switchboard,
 * bound to sb_mediator_shared()). A host that embeds Lua can bind a module to
 * a mediator of its own:
 *
 *     sb_lua_open(L, m);                    // pushes the module table
 *     lua_setglobal(L, "sb");               // or store it in package.loaded
 *
 * The module is written against switchboard.h and the Lua C API only. A Lua
 * state is single-threaded: the thread that opens the module owns the state.
 * The state has a delivery queue (switchboard.h, "Event loops"), owned by
 * that thread: the `done` of its asynchronous calls (the coroutines to
 * resume, sb.perform_async's callbacks) and the calls other threads make
 * into it wait there. A Lua action (or scheme, route or degrade handler)
 * called from any other thread is queued and answers its call from there:
 * a caller that waits waits on its own thread, one that does not
 * (sb_action_perform_async) gets `done`. A Lua callback called from another
 * thread is queued too, and its caller gets SB_EQUEUED at once. At most
 * SB_LUA_MAX_QUEUED calls wait per state: a call past that is not queued,
 * and its caller gets SB_EREJECTED with a message saying the queue is full.
 *
 * The owning thread runs the queue with sb.poll() (or sb.poll(max)), or —
 * a host that drives the state from its own loop, without calling into Lua
 * for it — by watching the queue's descriptor and dispatching it:
 *
 *     sb_queue *q = sb_lua_queue(L, -1);    // the module table at -1
 *     int fd;
 *     sb_queue_fd(q, &fd);                  // the loop watches fd for reading
 *     ...                                   // when it is readable:
 *     sb_queue_dispatch(q, 64, NULL);       // what sb.poll(64) runs
 *
 * Errors raised after a suspension (by a resumed coroutine, an
 * sb.perform_async callback, a queued call whose caller gets no answer)
 * are kept for the next sb.poll(), whose second result lists them, however
 * the queue was dispatched.
 *
 * Closing the state removes what it registered and still owns (targets'
 * actions, scheme and route handlers, the degrade handler, interceptors and
 * observers), and drops queued calls; a registration another state or C
 * made since under the same name stays. Callbacks that outlive the state
 * fail with SB_EACTION. A call a Lua action of the state answers later
 * (sb.later) that is still open when the state closes fails once, with
 * SB_EACTION ("closed before it answered"): its `done` runs exactly once,
 * also for a call started during lua_close (by a __gc finalizer, or by a
 * `done` the close runs).
 */
#ifndef SWITCHBOARD_LUA_H
#define SWITCHBOARD_LUA_H

#include <lua.h>

#include "switchboard.h"

/* The most calls from other threads that may wait for one Lua state's
 * sb.poll(); one more is refused with SB_EREJECTED. */
#define SB_LUA_MAX_QUEUED 16384

#ifdef __cplusplus
extern "C" {
#endif

/* Pushes a new module table bound to `m` (which must outlive the state) and
 * returns 1. Raises a Lua error if `m` is NULL, if memory runs out, or
 * inside a __gc finalizer (the state may be closing: Lua would never
 * finalize the module, which could then not remove what it registers). */
SB_API int sb_lua_open(lua_State *L, sb_mediator *m);

/* Optional, for a host that limits a state's memory in its lua_Alloc: the
 * library keeps what the state hands it (converted values, registered
 * targets and their names, route patterns) in memory of its own, which the
 * allocator never sees. After this call the module reports it: `charge` is
 * called with bytes > 0 before the library takes memory on the state's
 * behalf, and with bytes < 0 when it is given back (a conversion ends, the
 * call its params were for returns, sb.unregister, sb.unroute). The amounts
 * are estimates (docs/lua.md says how they are made). `charge` returns 1 to
 * accept, 0 to refuse: the operation then fails as if memory ran out (a
 * conversion with an error naming the budget, a registration with a memory
 * error). It is called on the state's own thread, and must not call Lua.
 * NULL stops the reporting. Never raises unless memory runs out. */
SB_API void sb_lua_set_charge(lua_State *L, int (*charge)(void *userdata, long long bytes), void *userdata);

/* The delivery queue of the module table at `idx` (what sb_lua_open or
 * require returned): borrowed, valid until the state closes (which frees
 * it; sb_queue_free leaves it alone, with a message saying so). NULL for
 * anything else. Its descriptor is sb.fd(); dispatching it
 * on the state's thread runs what sb.poll() runs. A host may also give it
 * to calls of its own (sb_call_options.queue), whose `done` then runs on
 * the state's thread. Never raises. New after 1.0.0, for 1.1. */
SB_API sb_queue *sb_lua_queue(lua_State *L, int idx);

/* The module's entry point for require: sb_lua_open(L, sb_mediator_shared()). */
SB_API int luaopen_switchboard(lua_State *L);

#ifdef __cplusplus
}
#endif

#endif /* SWITCHBOARD_LUA_H */
