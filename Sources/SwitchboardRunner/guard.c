/*
 * The limits of one Lua state: a counting allocator (memory), a count hook
 * (instructions and wall-clock time), and a watchdog thread for code that
 * never comes back to Lua.
 */
#include "internal.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* How many VM instructions run between two checks: few enough checks that
 * reading the clock costs little, often enough to stop within microseconds. */
#define CHECK_EVERY 10000

/* The same for coroutines, which a script can make by the thousand: each
 * has a countdown of its own (lua_sethook is per thread), and what it runs
 * after its last check is paid for in advance, when it is made (see
 * coroutine_made below). A small period keeps that advance small. */
#define COROUTINE_CHECK_EVERY 1000

/* The hook of a coroutine also runs at every call (LUA_MASKCALL): the
 * watchdog's nudge reaches only the main thread (it cannot know which
 * coroutine runs, nor touch one that may be collected meanwhile), so a
 * coroutine looks for the nudge itself, in g->nudged, at each call. A loop
 * of slow C calls makes a call per C function, so it stops on time; the
 * price is one hook call per function call in a coroutine (about 5 ns,
 * a quarter more on a loop of calls to a small function),
 * none on the main thread until the nudge. */
#define COROUTINE_HOOK (LUA_MASKCOUNT | LUA_MASKCALL)

/* VM instructions the report and the finalizers may run once the scenario
 * is over. */
#define AFTER_BUDGET 50000000

/* Memory a tripped state may still use, so that the report can be built. */
#define REPORT_RESERVE ((size_t)4 << 20)

double sbr_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void sbr_guard_init(sbr_guard *g, const sbr_config *config, sbr_arena *arena) {
    memset(g, 0, sizeof *g);
    g->arena = arena;
    g->max_memory = config->max_memory_bytes;
    g->max_instructions = config->max_instructions;
    g->timeout = config->timeout_seconds;
    g->grace = config->grace_seconds > 0 ? config->grace_seconds : 10;
}

static void hook(lua_State *L, lua_Debug *ar);
static int charge_instructions(sbr_guard *g, lua_State *L, uint64_t count);

static void trip(sbr_guard *g, const char *fmt, ...) {
    if (g->tripped) return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(g->message, sizeof g->message, fmt, args);
    va_end(args);
    g->tripped = 1;
    /* From now on every instruction fails, so that a pcall in the script
     * cannot swallow the limit and carry on (lua_sethook may be called at
     * any time, even from an allocator). */
    if (g->L != NULL && !g->relaxed) lua_sethook(g->L, hook, LUA_MASKCOUNT, 1);
}

/* A signal stopped the run (signals.c): the state stops as at a limit. */
static void interrupted(sbr_guard *g) {
    int signal = sbr_interrupted();
    g->interrupted = 1;
    trip(g, "interrupted by signal %d (%s): the run was stopped", signal, sbr_signal_name(signal));
}

static void memory_limit(sbr_guard *g) {
    trip(g, "the memory limit of %zu MiB was reached (--max-memory)", g->max_memory >> 20);
}

/* Lua's core answers a refusal with an emergency collection (which neither
 * allocates nor runs Lua) and asks again for the same size: only if that
 * is refused too is it the limit. Other callers (lauxlib's buffers, a
 * library) do not ask again: they raise "not enough memory", an ordinary
 * error a pcall would swallow. So a refusal stays pending until the same
 * size is asked for again; any other request to grow, or the hook, finding
 * it pending, means the script saw the refusal: the limit. */
static void *refuse(sbr_guard *g, size_t nsize) {
    if (g->refused_size != 0) memory_limit(g);
    g->refused_size = nsize;
    return NULL;
}

void *sbr_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    sbr_guard *g = ud;
    /* For a new block Lua passes the kind of object in osize, not a size. */
    size_t old = ptr != NULL ? osize : 0;
    if (nsize == 0) {
        if (g->arena != NULL) {
            (void)sbr_arena_resize(g->arena, ptr, old, 0);
        } else {
            free(ptr);
        }
        g->in_use -= old;
        return NULL;
    }
    if (g->max_memory > 0 && nsize > old) {
        size_t limit = g->max_memory + (g->relaxed ? REPORT_RESERVE : 0);
        if (g->in_use - old + nsize > limit) return refuse(g, nsize);
    }
    void *block = g->arena != NULL ? sbr_arena_resize(g->arena, ptr, old, nsize) : realloc(ptr, nsize);
    if (block != NULL) {
        g->in_use = g->in_use - old + nsize;
        if (g->refused_size != 0) {
            if (g->refused_size != nsize && nsize > old) memory_limit(g);
            g->refused_size = 0;
        }
    }
    return block;
}

static void hook(lua_State *L, lua_Debug *ar) {
    void *ud = NULL;
    lua_getallocf(L, &ud);
    sbr_guard *g = ud;
    /* CHECK_EVERY (COROUTINE_CHECK_EVERY in a coroutine), or 1 when
     * nudged or tripped */
    int count = lua_gethookcount(L);
    if (ar->event != LUA_HOOKCOUNT) {
        /* A call (COROUTINE_HOOK, or the main thread once nudged): nothing
         * to count, only the nudge to see. From now on this thread checks
         * every instruction, and the clock is read below. */
        if (g->relaxed || !(__atomic_load_n(&g->nudged, __ATOMIC_RELAXED) || g->tripped)) return;
        if (count != 1) lua_sethook(L, hook, COROUTINE_HOOK, 1);
        count = 0;
    }
    if (g->relaxed) {
        /* The report has a budget of its own. */
        if (!charge_instructions(g, L, (uint64_t)count)) luaL_error(L, "the budget for finalizers and reports ran out");
        return;
    }
    if (g->refused_size != 0) memory_limit(g); /* Lua code ran after a refusal: it saw it */
    if (sbr_interrupted() != 0) interrupted(g);
    if (charge_instructions(g, L, (uint64_t)count) && g->deadline > 0 && sbr_now() > g->deadline) {
        trip(g, "the timeout of %g s was reached (--timeout)", g->timeout);
    }
    /* Nudged (count 1) but not past the deadline: the watchdog's clock
     * starts before the guard's (before the script loads), so the nudge
     * comes early by the time the load took. Keep checking every
     * instruction until the deadline passes: going back to the usual pace
     * here could leave a loop of slow C calls running for seconds more. */
    if (g->tripped) {
        if (g->where[0] == '\0' && lua_getinfo(L, "Sl", ar) && ar->currentline > 0 && ar->source[0] == '@') {
            snprintf(g->where, sizeof g->where, "%s:%d", ar->short_src, ar->currentline);
        }
        lua_sethook(L, hook, LUA_MASKCOUNT, 1);
        luaL_error(L, "%s", g->message);
    }
}

void sbr_guard_resume(sbr_guard *g, double spent) {
    g->started = sbr_now() - spent;
    g->deadline = g->timeout > 0 ? g->started + g->timeout : 0;
}

void sbr_guard_arm(sbr_guard *g, lua_State *L) {
    g->started = sbr_now();
    g->deadline = g->timeout > 0 ? g->started + g->timeout : 0;
    /* A nudge may have come already, while the script loaded for longer
     * than the timeout: keep checking every instruction then. */
    int nudged = __atomic_load_n(&g->nudged, __ATOMIC_RELAXED);
    lua_sethook(L, hook, nudged ? COROUTINE_HOOK : LUA_MASKCOUNT, nudged ? 1 : CHECK_EVERY);
}

/* Charges `count` VM instructions to the scenario's one budget (or, once
 * it is over, to the report's). 0 when the budget ran out: the limit has
 * tripped, and the caller raises. */
static int charge_instructions(sbr_guard *g, lua_State *L, uint64_t count) {
    if (g->relaxed) {
        g->after += count;
        if (g->after > AFTER_BUDGET) {
            lua_sethook(L, hook, LUA_MASKCOUNT, 1);
            return 0;
        }
        return 1;
    }
    if (!g->tripped) {
        g->instructions += count;
        if (g->max_instructions > 0 && g->instructions > g->max_instructions) {
            trip(g, "the instruction budget of %llu VM instructions ran out (--max-instructions)",
                 (unsigned long long)g->max_instructions);
        }
    }
    return !g->tripped;
}

/* coroutine.create and coroutine.wrap, around the originals (which make a
 * thread and call no Lua). A new thread inherits its maker's hook with a
 * fresh countdown, and the instructions it runs after its last check are
 * never seen by the hook: work spread over short coroutines went uncounted.
 * So every coroutine counts against the scenario's one budget: it checks
 * every COROUTINE_CHECK_EVERY instructions, and the period it may end
 * inside is charged when it is made (at most that many instructions
 * counted that did not run, per coroutine; none that ran and were not). */
static int coroutine_made(lua_State *L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    lua_State *co = lua_tothread(L, -1);
    if (co == NULL && lua_tocfunction(L, -1) != NULL && lua_getupvalue(L, -1, 1) != NULL) {
        co = lua_tothread(L, -1); /* coroutine.wrap's function holds its thread */
        lua_pop(L, 1);
    }
    void *ud = NULL;
    lua_getallocf(L, &ud);
    sbr_guard *g = ud;
    if (co != NULL && lua_gethook(L) == hook) {
        int every = lua_gethookcount(L) == 1 ? 1 : COROUTINE_CHECK_EVERY; /* nudged or tripped: keep 1 */
        lua_sethook(co, hook, COROUTINE_HOOK, every);
        if (!charge_instructions(g, L, COROUTINE_CHECK_EVERY)) {
            return luaL_error(L, "%s", g->relaxed ? "the budget for finalizers and reports ran out" : g->message);
        }
    }
    return 1;
}

/* xpcall's message handler runs where the error was raised; raised by a
 * limit, that is inside the count hook, where Lua calls no hook: a handler
 * that looped would run with no limit at all. So once a limit has tripped
 * (or the report's budget ran out), the script's handlers are not called:
 * the limit's error goes on unchanged. */
static int guarded_handler(lua_State *L) {
    void *ud = NULL;
    lua_getallocf(L, &ud);
    sbr_guard *g = ud;
    if (g->tripped || (g->relaxed && g->after > AFTER_BUDGET)) return 1; /* the error, as it is */
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* What the original xpcall returned, also after a yield inside it. */
static int xpcall_returned(lua_State *L, int status, lua_KContext k) {
    (void)status, (void)k;
    return lua_gettop(L);
}

static int guarded_xpcall(lua_State *L) {
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, guarded_handler, 1);
    lua_replace(L, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    /* With a continuation, as the original: a call inside it may suspend
     * its coroutine on an asynchronous action. */
    lua_callk(L, lua_gettop(L) - 1, LUA_MULTRET, 0, xpcall_returned);
    return lua_gettop(L);
}

void sbr_guard_handlers(lua_State *L) {
    if (lua_getglobal(L, "xpcall") == LUA_TFUNCTION) {
        lua_pushcclosure(L, guarded_xpcall, 1);
        lua_setglobal(L, "xpcall");
    } else {
        lua_pop(L, 1);
    }
}

void sbr_guard_coroutines(lua_State *L) {
    lua_getglobal(L, "coroutine");
    if (lua_type(L, -1) == LUA_TTABLE) {
        static const char *const makers[] = {"create", "wrap"};
        for (size_t i = 0; i < sizeof makers / sizeof makers[0]; i++) {
            lua_getfield(L, -1, makers[i]);
            lua_pushcclosure(L, coroutine_made, 1);
            lua_setfield(L, -2, makers[i]);
        }
    }
    lua_pop(L, 1);
}

int sbr_guard_charge(void *ud, long long bytes) {
    sbr_guard *g = ud;
    if (bytes <= 0) {
        size_t back = (size_t)-bytes;
        g->charged -= back < g->charged ? back : g->charged;
        g->in_use -= back < g->in_use ? back : g->in_use;
        return 1;
    }
    size_t more = (size_t)bytes;
    if (g->max_memory > 0) {
        size_t limit = g->max_memory + (g->relaxed ? REPORT_RESERVE : 0);
        if (g->in_use > limit || more > limit - g->in_use) {
            trip(g, "the memory limit of %zu MiB was reached (--max-memory)", g->max_memory >> 20);
            return 0;
        }
    }
    g->charged += more;
    g->in_use += more;
    return 1;
}

void sbr_guard_relax(sbr_guard *g, lua_State *L) {
    if (g->relaxed) return;
    g->relaxed = 1;
    g->after = 0;
    lua_sethook(L, hook, LUA_MASKCOUNT, CHECK_EVERY);
}

/* How long one wait lasts before the limits are looked at again. */
#define WAIT_SLICE_MS 100

int sbr_guard_wait(sbr_guard *g, lua_State *L, int fd) {
    for (;;) {
        if (!g->relaxed && sbr_interrupted() != 0) interrupted(g);
        if (g->tripped) return luaL_error(L, "%s", g->message);
        int ms = WAIT_SLICE_MS;
        if (!g->relaxed && g->deadline > 0) {
            double left = g->deadline - sbr_now();
            if (left <= 0 || __atomic_load_n(&g->nudged, __ATOMIC_RELAXED)) {
                trip(g, "the timeout of %g s was reached (--timeout) while the scenario waited for an "
                     "asynchronous call", g->timeout);
                return luaL_error(L, "%s", g->message);
            }
            if (left * 1000 < ms) ms = (int)(left * 1000) + 1;
        }
        struct pollfd p = {fd, POLLIN, 0};
        int n = poll(&p, 1, ms);
        if (n > 0) return 0;
        if (n < 0 && errno != EINTR) return luaL_error(L, "waiting for an asynchronous call: %s", strerror(errno));
    }
}

int sbr_lua_wait(lua_State *L) {
    lua_Integer fd = luaL_checkinteger(L, 1);
    luaL_argcheck(L, fd >= 0 && fd <= 0x7fffffff, 1, "a file descriptor");
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return sbr_guard_wait(ud, L, (int)fd);
}

const char *sbr_guard_tripped(const sbr_guard *g) {
    return g->tripped ? g->message : NULL;
}

const char *sbr_guard_where(const sbr_guard *g) {
    return g->tripped && g->where[0] != '\0' ? g->where : NULL;
}

/* ---------------------------------------------------------------- watchdog */

/* Waits until `until` or until stopped; 1 if stopped. */
static int wait_until(sbr_watchdog *w, const struct timespec *until) {
    pthread_mutex_lock(&w->lock);
    int timed_out = 0;
    while (!w->done && !timed_out) {
        timed_out = pthread_cond_timedwait(&w->wake, &w->lock, until) != 0;
    }
    int done = w->done;
    pthread_mutex_unlock(&w->lock);
    return done;
}

static void *watch(void *arg) {
    sbr_watchdog *w = arg;
    /* At the timeout, make the state's next instruction and next call
     * check the limits: C functions that run long between instructions
     * would otherwise delay the hook's own check. lua_sethook may be called
     * asynchronously (ldebug.c). Coroutines see the flag at their next call
     * (COROUTINE_HOOK): this thread cannot reach them safely. */
    if (wait_until(w, &w->nudge_at)) return NULL;
    pthread_mutex_lock(&w->lock);
    if (w->L != NULL) {
        __atomic_store_n(&w->guard->nudged, 1, __ATOMIC_RELAXED);
        lua_sethook(w->L, hook, COROUTINE_HOOK, 1);
    }
    pthread_mutex_unlock(&w->lock);
    if (wait_until(w, &w->until)) return NULL;
    /* In a scenario's own process, ending that process is enough: the
     * parent sees how it ended and reports the scenario. */
    if (w->quiet) _exit(SBR_STUCK_EXIT);
    /* The scenario is stuck where no hook runs (in C). Nothing can stop it
     * safely: end the run, saying so on both streams. */
    char line[sizeof w->what + 20];
    int n = snprintf(line, sizeof line, "Bail out! %s", w->what);
    ssize_t ignored = write(w->report_fd, line, strlen(line));
    n = snprintf(line, sizeof line, "switchboard: %s", w->what);
    ignored = write(STDERR_FILENO, line, strlen(line));
    (void)n;
    (void)ignored;
    sbr_outputs_publish(); /* the report files so far, where they belong */
    _exit(3);
}

int sbr_watchdogs_quiet = 0;

static struct timespec at(double seconds) {
    struct timespec t;
    t.tv_sec = (time_t)seconds;
    t.tv_nsec = (long)((seconds - (double)t.tv_sec) * 1e9);
    return t;
}

/* `spent`: seconds of the timeout already used (by the script's top level,
 * run once before the scenario's process was made). */
static int start(sbr_watchdog *w, sbr_guard *g, int report_fd, const char *script, const char *name,
                 int quiet, double spent) {
    memset(w, 0, sizeof *w);
    w->report_fd = report_fd;
    quiet = quiet || sbr_watchdogs_quiet;
    if (g->timeout <= 0) return 1; /* no timeout: nothing to watch */
    /* Names as a terminal may show them: a script's path can hold anything. */
    char shown_script[200], shown_name[200];
    sbr_visible(script, shown_script, sizeof shown_script);
    sbr_visible(name != NULL ? name : "(listing scenarios)", shown_name, sizeof shown_name);
    snprintf(w->what, sizeof w->what, "%s: \"%s\" is still running %g s past its timeout, in code no limit can "
             "interrupt (a C function?); ending the run\n", shown_script, shown_name, g->grace);
    w->grace = g->grace;
    w->quiet = quiet;
    w->L = g->L;
    w->guard = g;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&w->wake, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&w->lock, NULL);
    double now = sbr_now(), left = g->timeout > spent ? g->timeout - spent : 0;
    w->nudge_at = at(now + left);
    w->until = at(now + left + g->grace);
    w->active = pthread_create(&w->thread, NULL, watch, w) == 0;
    return w->active;
}

int sbr_watchdog_start(sbr_watchdog *w, sbr_guard *g, int report_fd, const char *script, const char *name) {
    return start(w, g, report_fd, script, name, 0, 0);
}

int sbr_watchdog_start_quiet(sbr_watchdog *w, sbr_guard *g, double spent) {
    return start(w, g, -1, "", "", 1, spent);
}

void sbr_watchdog_forget_state(sbr_watchdog *w) {
    if (!w->active) return;
    pthread_mutex_lock(&w->lock);
    w->L = NULL;
    pthread_mutex_unlock(&w->lock);
}

void sbr_watchdog_stop(sbr_watchdog *w) {
    if (!w->active) return;
    pthread_mutex_lock(&w->lock);
    w->done = 1;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    w->active = 0;
}
