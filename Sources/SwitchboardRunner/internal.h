/* Shared between the runner's C files. */
#ifndef SWITCHBOARD_RUNNER_INTERNAL_H
#define SWITCHBOARD_RUNNER_INTERNAL_H

#include <pthread.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "switchboard_lua.h"
#include "switchboard_runner.h"

/* The limits of one Lua state; the allocator's userdata. */
typedef struct sbr_guard {
    lua_State *L; /* set once the state exists: a trip makes every instruction fail */
    size_t in_use, max_memory; /* in_use includes `charged` */
    size_t charged; /* what the library holds for the state (sbr_guard_charge) */
    size_t refused_size; /* the last allocation refused, 0 after one succeeds */
    uint64_t instructions, max_instructions;
    uint64_t after; /* instructions run since relaxed */
    double timeout, grace, started, deadline;
    int relaxed; /* the scenario is over: no hook, memory for the report */
    int nudged; /* set (atomically) by the watchdog at the timeout */
    int tripped;
    char message[200];
    char where[200]; /* "file:line" running when the limit stopped it */
} sbr_guard;

typedef struct sbr_watchdog {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct timespec nudge_at, until; /* the timeout; the timeout plus the grace */
    lua_State *L; /* and its guard: NULL once the state is forgotten */
    sbr_guard *guard;
    int active, done;
    double grace;
    int report_fd;
    const char *script, *name;
} sbr_watchdog;

double sbr_now(void);
void sbr_guard_init(sbr_guard *g, const sbr_config *config);
void *sbr_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/* Starts the clock and the instruction count (the hook). */
void sbr_guard_arm(sbr_guard *g, lua_State *L);
/* Makes every coroutine of the state count against its one instruction
 * budget (wraps coroutine.create and coroutine.wrap). */
void sbr_guard_coroutines(lua_State *L);
/* The state's sb_lua_set_charge function (`ud` is the guard): memory the
 * library holds on the state's behalf counts against --max-memory. */
int sbr_guard_charge(void *ud, long long bytes);
/* Ends the scenario's limits on `L` once it is over; what runs after it
 * (the report, finalizers) has a budget of its own. */
void sbr_guard_relax(sbr_guard *g, lua_State *L);
/* The message of the limit that stopped the state, or NULL. */
const char *sbr_guard_tripped(const sbr_guard *g);
/* Where the tripped state was stopped ("file:line"), or NULL. */
const char *sbr_guard_where(const sbr_guard *g);

int sbr_watchdog_start(sbr_watchdog *w, sbr_guard *g, int report_fd, const char *script, const char *name);
/* Before the state is closed: the watchdog must not touch it any more. */
void sbr_watchdog_forget_state(sbr_watchdog *w);
void sbr_watchdog_stop(sbr_watchdog *w);

/* The sandbox (see sandbox.c): sbr_sandbox on a state with the standard
 * libraries, sbr_sandbox_module with the module table at the top. */
void sbr_sandbox(lua_State *L);
void sbr_sandbox_module(lua_State *L);

/* A new state with the sandbox, the module bound to `m` (package.loaded and
 * the global `sb`) and sb.path set from the target directories. Runs
 * protected: raises on failure. */
void sbr_prepare_state(lua_State *L, const sbr_config *config, sb_mediator *m);

/* A fresh mediator with the configured plugins; NULL with *error set
 * (malloc'd) when one does not load. */
sb_mediator *sbr_new_mediator(const sbr_config *config, char **error);

char *sbr_strdup(const char *s);
/* A malloc'd copy of the string (or number) at `idx` for a report, whole:
 * a NUL byte becomes the two characters \0 instead of ending it. NULL if it
 * is neither, or on allocation failure. */
char *sbr_copy_text(lua_State *L, int idx);

#endif
