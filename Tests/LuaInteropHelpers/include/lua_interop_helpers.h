/* C code for the Swift tests that put Swift, C and Lua in one process. */
#ifndef LUA_INTEROP_HELPERS_H
#define LUA_INTEROP_HELPERS_H

#include "switchboard.h"

typedef struct lua_State lua_State;

/* A new Lua state with the standard libraries and the module bound to `m`
 * as global `sb`; NULL on failure. Opened in protected mode. */
lua_State *helper_lua_new(sb_mediator *m);
void helper_lua_close(lua_State *L);

/* Runs `chunk` in protected mode. Returns its first result converted to a
 * string (malloc'd, the caller frees it), or NULL with the error message in
 * *error (malloc'd too). */
char *helper_lua_run(lua_State *L, const char *chunk, char **error);

/* The matrix's C target: run(params) calls params.cb("c") and returns
 * {target = "c", callback = <what the callback returned>}. */
sb_status helper_matrix_target(void *userdata, const sb_value *params, sb_value **out);

/* The matrix's C caller: performs target.run with a C callback answering
 * "c got <arg>", and describes the result as "target=<t> callback=<c>"
 * (malloc'd), or returns NULL with sb_error_message() set. */
char *helper_matrix_call_from_c(sb_mediator *m, const char *target);

#endif
