/*
 * switchboard_sys.h — entry points for Switchboard's own faces, not for
 * programs (libgit2's include/git2/sys/ and its "semi-private" `git_odb__`
 * names are the model).
 *
 * Never installed in PREFIX/include: the Lua module's C glue is its one
 * user, and the header travels with the glue's sources
 * (PREFIX/share/switchboard/lua, for luarocks make). The functions are
 * named sb__ and exported under the symbol version SWITCHBOARD_PRIVATE
 * (Sources/SwitchboardLibrary/exports.map), never a release's node, so no
 * program reaches them through switchboard.h, and the ABI baseline
 * (abi/libswitchboard.abi) does not record them.
 *
 * No promise beyond the library's own release: a face is built with the
 * library it runs with (scripts/build.sh builds both; the rock is built
 * against the installed library). A change to a signature or a meaning
 * here renames the version node (SWITCHBOARD_PRIVATE_2, ...), so a module
 * built against another library refuses to load, naming the node, instead
 * of calling with the wrong arguments. scripts/check-exports.sh checks that
 * the library exports exactly these functions under that node and that
 * switchboard.h declares none of them; scripts/check-header.sh that the
 * Swift exports have these prototypes.
 */
#ifndef SWITCHBOARD_SYS_H
#define SWITCHBOARD_SYS_H

#include "switchboard.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A call its caller runs itself, for a face that can run the function more
 * cheaply in its own representation: the Lua module calls a Lua action of
 * its own state with a copy of the caller's table, converting nothing to C
 * values and back.
 *
 * sb__action_enter returns 1 only when sb_action_perform(m, target, action,
 * params, 0, out) with params that name no module (SB_MODULE_KEY) would now
 * do nothing but call a function registered with sb_action_register: no
 * interceptor or observer on `m`, `target` and `action` registered by name
 * (no discovery), with no contract, and the call not too deep. Then the call
 * is entered as sb_action_perform enters it: one more call in progress on
 * this thread (SB_MAX_CALL_DEPTH), the call whose action runs here
 * (sb_completion_take, sb_action_cancelled), the function and its userdata
 * kept alive even if unregistered meanwhile. *fn and *userdata are what was
 * registered; *ticket names the call. The caller then does what
 * fn(userdata, params, out) would do, or nothing (a call left at once with
 * SB_OK ran nothing), and ends the call with sb__action_leave on the same
 * thread, exactly once, innermost first. Otherwise (also for a NULL
 * argument) it returns 0 and enters nothing: make the call the general way,
 * which resolves it the same way and reports what stood in the way.
 *
 * sb__action_leave ends the call with what the function returned: `status`,
 * and *out as for an sb_fn (SB_OK with *out NULL becomes an SB_NULL value;
 * `out` may be NULL for SB_OK when the caller keeps the result in its own
 * form). `target` and `action` are the names entered (they name the action
 * in messages). It returns the call's status as sb_action_perform would: a
 * failure without a message set since sb__action_enter gets one, an unknown
 * status becomes SB_EACTION, SB_PENDING (after sb_completion_take) waits for
 * the answer, set in *out. SB_EINVAL, nothing done, for a ticket that is
 * not this thread's innermost call in progress, or one already left.
 * Calls no user code, but waits for an SB_PENDING answer.
 */
SB_API int sb__action_enter(sb_mediator *m, const char *target, const char *action, sb_fn *fn, void **userdata,
                            uint64_t *ticket);
SB_API sb_status sb__action_leave(const char *target, const char *action, uint64_t ticket, sb_status status,
                                  sb_value **out);

/*
 * A queue a face owns and lends to programs: the Lua state's (sb_lua_queue).
 * While `lent` is 1, sb_queue_free leaves the queue alone (a program that
 * frees what it borrowed would free it under the state), with a message;
 * the face sets 0 before it frees the queue itself. NULL: nothing.
 */
SB_API void sb__queue_lend(sb_queue *q, int lent);

#ifdef __cplusplus
}
#endif

#endif
