/*
 * Lists, prepares and runs the scenarios of one script, in a fresh Lua state
 * bound to a fresh mediator: to list them, to prepare a state that each
 * scenario's process copies (script.c), or, the old way, to run one. The
 * scenario API itself (scenario, step, expect) is Lua, handed in as
 * config->prelude; this file builds the state, keeps the limits, and turns
 * what the prelude reports into an sbr_result.
 *
 * The prelude is called with a table of helpers (now, wallclock, trace,
 * script, wait, coverage, file_methods, quiet_top_level) and returns its
 * control table:
 *   define(chunk)     runs the script's top level, collecting scenarios;
 *                     returns nil or a problem {message, where, traceback}
 *   list()            the scenarios, in order: {name, tags, skip, todo}
 *   before_all()      runs the before_all hooks; nil or a problem
 *   after_all()       runs the after_all hooks; nil or a problem
 *   top_output()      what the top level wrote (print, io.write), or nil
 *   run(index, name [, whole])  runs one scenario (1-based), with before_all
 *                     and after_all around it when `whole`; returns its
 *                     result table
 *   partial()         what is known after a limit stopped it (output, step)
 */
#include "internal.h"
#include "switchboard_lua_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CONTROL_KEY "switchboard.runner.control"

/* What a prepared state's arena chunks may hold beyond --max-memory (the
 * report's reserve); past that its blocks come from malloc. */
#define ARENA_SLACK ((size_t)8 << 20)

/* What a state is made for. */
typedef enum purpose {
    LISTING,   /* the names only */
    RUNNING,   /* one scenario, after the top level */
    PREPARING, /* the top level only: the state stays, for script.c */
} purpose;

typedef struct frame {
    const sbr_config *config;
    const char *script;
    sb_mediator *m;
    sbr_guard *guard;
    purpose purpose;
    size_t index; /* run: 0-based */
    const char *name;
    int loaded;   /* the control table is in the registry */
    sbr_listed *listed; /* list: filled here, owned by the caller */
    size_t count;
    char *top_output; /* prepare: what the top level wrote */
    sbr_result *result;
} frame;

/* ------------------------------------------------------------- helpers */

static int h_now(lua_State *L) {
    lua_pushnumber(L, sbr_now());
    return 1;
}

/* UTC, ISO 8601 with milliseconds: what a trace line is stamped with. */
static int h_wallclock(lua_State *L) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    struct tm utc;
    gmtime_r(&t.tv_sec, &utc);
    char text[40];
    size_t n = strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
    snprintf(text + n, sizeof text - n, ".%03ldZ", t.tv_nsec / 1000000);
    lua_pushstring(L, text);
    return 1;
}

static int h_trace(lua_State *L) {
    size_t length = 0;
    const char *line = luaL_checklstring(L, 1, &length);
    const sbr_config *config = lua_touserdata(L, lua_upvalueindex(1));
    config->trace(config->trace_context, line, length);
    return 0;
}

static void push_helpers(lua_State *L, const frame *f) {
    lua_createtable(L, 0, 8);
    sbr_push_file_methods(L);
    lua_setfield(L, -2, "file_methods");
    lua_pushcfunction(L, sbr_lua_wait);
    lua_setfield(L, -2, "wait");
    lua_pushcfunction(L, h_now);
    lua_setfield(L, -2, "now");
    lua_pushcfunction(L, h_wallclock);
    lua_setfield(L, -2, "wallclock");
    if (f->config->trace != NULL) {
        lua_pushlightuserdata(L, (void *)f->config);
        lua_pushcclosure(L, h_trace, 1);
        lua_setfield(L, -2, "trace");
    }
    lua_pushstring(L, f->script);
    lua_setfield(L, -2, "script");
    lua_pushboolean(L, f->config->coverage);
    lua_setfield(L, -2, "coverage");
    /* The top level runs twice or more (listing, preparing; the old way,
     * before each scenario): what it writes to standard error is shown
     * when it is prepared only. */
    lua_pushboolean(L, f->purpose != PREPARING);
    lua_setfield(L, -2, "quiet_top_level");
}

/* ------------------------------------------------------------- results */

static char *field_string(lua_State *L, int table, const char *key) {
    lua_getfield(L, table, key);
    char *copy = NULL;
    if (lua_type(L, -1) == LUA_TSTRING) copy = sbr_copy_text(L, -1);
    lua_pop(L, 1);
    return copy;
}

static sbr_outcome outcome_named(const char *name) {
    if (name == NULL) return SBR_ERROR;
    if (strcmp(name, "passed") == 0) return SBR_PASSED;
    if (strcmp(name, "failed") == 0) return SBR_FAILED;
    if (strcmp(name, "skipped") == 0) return SBR_SKIPPED;
    return SBR_ERROR;
}

/* Copies the report table at `idx` into *r (which starts cleared). Memory
 * errors may interrupt it; whatever was copied is in *r and freed with it. */
static void copy_report(lua_State *L, int idx, sbr_result *r) {
    idx = lua_absindex(L, idx);
    char *outcome = field_string(L, idx, "outcome");
    if (outcome != NULL) r->outcome = outcome_named(outcome);
    free(outcome);
    if (r->message == NULL) r->message = field_string(L, idx, "message");
    if (r->where == NULL) r->where = field_string(L, idx, "where");
    if (r->step == NULL) r->step = field_string(L, idx, "step");
    if (r->traceback == NULL) r->traceback = field_string(L, idx, "traceback");
    if (r->output == NULL) r->output = field_string(L, idx, "output");
    if (r->calls == NULL) r->calls = field_string(L, idx, "calls");
    lua_getfield(L, idx, "expectations");
    lua_Integer expectations = lua_tointeger(L, -1);
    if (expectations > 0) r->expectations = (size_t)expectations;
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "steps") == LUA_TTABLE && r->steps == NULL) {
        size_t n = (size_t)luaL_len(L, -1);
        r->steps = n > 0 ? calloc(n, sizeof *r->steps) : NULL;
        for (size_t i = 0; r->steps != NULL && i < n; i++) {
            if (lua_rawgeti(L, -1, (lua_Integer)i + 1) == LUA_TTABLE) {
                sbr_step *s = &r->steps[r->step_count++];
                s->name = field_string(L, -1, "name");
                s->status = field_string(L, -1, "status");
                lua_getfield(L, -1, "seconds");
                s->seconds = lua_tonumber(L, -1);
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

/* ------------------------------------------------------- protected parts */

static void push_control(lua_State *L, const char *function) {
    lua_getfield(L, LUA_REGISTRYINDEX, CONTROL_KEY);
    lua_getfield(L, -1, function);
    lua_remove(L, -2);
}

/* One scenario, in a state where the top level has run (and, in a
 * scenario's process, before_all: `whole` is 0; the old way, 1). */
static int protected_run_scenario(lua_State *L, int whole) {
    frame *f = lua_touserdata(L, 1);
    push_control(L, "run");
    lua_pushinteger(L, (lua_Integer)f->index + 1);
    lua_pushstring(L, f->name);
    lua_pushboolean(L, whole);
    lua_call(L, 3, 1);
    sbr_guard_relax(f->guard, L);
    copy_report(L, -1, f->result);
    return 0;
}

static int protected_run(lua_State *L) {
    return protected_run_scenario(L, 0);
}

/* A problem table at the top (before_all's, after_all's) into the result:
 * a failed expectation, or an error. */
static void take_problem(lua_State *L, sbr_result *r) {
    if (lua_istable(L, -1)) {
        copy_report(L, -1, r);
        if (r->outcome == SBR_PASSED) r->outcome = SBR_ERROR;
    } else { /* the error handler itself failed (out of memory): the bare error */
        r->outcome = SBR_ERROR;
        r->message = sbr_copy_text(L, -1);
    }
}

/* The scenarios the control table lists (at the top), into f->listed. */
static int copy_listing(lua_State *L, frame *f) {
    size_t n = (size_t)luaL_len(L, -1);
    f->listed = calloc(n > 0 ? n : 1, sizeof *f->listed);
    if (f->listed == NULL) return luaL_error(L, "out of memory listing scenarios");
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i + 1);
        sbr_listed *s = &f->listed[f->count++];
        s->name = field_string(L, -1, "name");
        s->tags = field_string(L, -1, "tags");
        s->skip = field_string(L, -1, "skip");
        s->todo = field_string(L, -1, "todo");
        if (s->name == NULL) return luaL_error(L, "out of memory listing scenarios");
        lua_pop(L, 1);
    }
    return 0;
}

/* Everything up to the script's top level having run, then what `f` is for. */
static int protected_main(lua_State *L) {
    frame *f = lua_touserdata(L, 1);
    sbr_prepare_state(L, f->config, f->m);
    if (luaL_loadbufferx(L, f->config->prelude, f->config->prelude_length, "=(scenario API)", "t") != LUA_OK) {
        return lua_error(L);
    }
    push_helpers(L, f);
    lua_call(L, 1, 1);
    luaL_checktype(L, -1, LUA_TTABLE);
    sbr_guard_handlers(L); /* the script's xpcall; the API keeps the original */
    lua_setfield(L, LUA_REGISTRYINDEX, CONTROL_KEY);
    f->loaded = 1;

    if (sb__lua_load_source(L, f->script) != LUA_OK) {
        f->result->outcome = SBR_ERROR;
        f->result->message = sbr_copy_text(L, -1);
        return 0;
    }
    int chunk = lua_gettop(L);
    sbr_guard_arm(f->guard, L);
    push_control(L, "define");
    lua_pushvalue(L, chunk);
    lua_call(L, 1, 1);
    if (!lua_isnil(L, -1)) { /* the top level raised: one problem for the script */
        sbr_guard_relax(f->guard, L);
        take_problem(L, f->result);
        f->result->outcome = SBR_ERROR;
        return 0;
    }
    lua_pop(L, 1);

    if (f->purpose == PREPARING) {
        /* Once per file: what before_all sets up, each scenario's process
         * gets a copy of. */
        push_control(L, "before_all");
        lua_call(L, 0, 1);
        if (!lua_isnil(L, -1)) {
            sbr_guard_relax(f->guard, L);
            take_problem(L, f->result);
            return 0;
        }
        lua_pop(L, 1);
        push_control(L, "top_output");
        lua_call(L, 0, 1);
        if (lua_type(L, -1) == LUA_TSTRING) f->top_output = sbr_copy_text(L, -1);
        lua_pop(L, 1);
        /* Each scenario's process starts between two collections, not in
         * the middle of one that would go on to mark (and so copy) every
         * page the definitions live in. */
        lua_gc(L, LUA_GCCOLLECT, 0);
        return 0;
    }
    if (f->purpose == LISTING) {
        push_control(L, "list");
        lua_call(L, 0, 1);
        sbr_guard_relax(f->guard, L);
        return copy_listing(L, f);
    }

    lua_settop(L, 1);
    return protected_run_scenario(L, 1);
}

/* after_all, in the prepared state: its problem, or only what it wrote. */
static int protected_after_all(lua_State *L) {
    frame *f = lua_touserdata(L, 1);
    push_control(L, "after_all");
    lua_call(L, 0, 2);
    sbr_guard_relax(f->guard, L);
    if (!lua_isnil(L, -2)) {
        lua_pop(L, 1); /* the problem holds the output too */
        take_problem(L, f->result);
    } else if (lua_type(L, -1) == LUA_TSTRING && lua_rawlen(L, -1) > 0) {
        f->result->output = sbr_copy_text(L, -1);
    }
    return 0;
}

/* After a limit or an error escaped the prelude: what it still knows. */
static int protected_partial(lua_State *L) {
    frame *f = lua_touserdata(L, 1);
    push_control(L, "partial");
    lua_call(L, 0, 1);
    if (lua_istable(L, -1)) copy_report(L, -1, f->result);
    return 0;
}

static void fail(sbr_result *r, sbr_outcome outcome, const char *message) {
    r->outcome = outcome;
    free(r->message);
    r->message = sbr_strdup(message);
}

/* Runs `function` protected with `f`. An error or a limit becomes the
 * result, with what the prelude still knows, and relaxes the state; 1 when
 * there was none. */
static int protected(frame *f, lua_State *L, lua_CFunction function) {
    sbr_result *r = f->result;
    lua_pushcfunction(L, function);
    lua_pushlightuserdata(L, f);
    int status = lua_pcall(L, 1, 0, 0);
    if (status != LUA_OK) {
        const char *tripped = sbr_guard_tripped(f->guard);
        if (tripped != NULL) {
            fail(r, f->guard->interrupted ? SBR_INTERRUPTED : SBR_LIMIT, tripped);
            if (r->where == NULL) r->where = sbr_strdup(sbr_guard_where(f->guard));
        } else if (status == LUA_ERRMEM) {
            fail(r, SBR_LIMIT, "the memory limit was reached (--max-memory)");
        } else {
            char *message = sbr_copy_text(L, -1);
            fail(r, SBR_ERROR, message != NULL ? message : "(error object is not a string)");
            free(message);
        }
        sbr_guard_relax(f->guard, L);
        lua_settop(L, 0);
        if (f->loaded) {
            lua_pushcfunction(L, protected_partial);
            lua_pushlightuserdata(L, f);
            (void)lua_pcall(L, 1, 0, 0); /* best effort: the report stands without it */
        }
    }
    return status == LUA_OK;
}

/* A fresh mediator and state for `f`, limited by `guard`, its memory from
 * `arena` (NULL: malloc); NULL with the result filled when there is none. */
static lua_State *open_state(frame *f, sbr_guard *guard, sbr_arena *arena) {
    char *error = NULL;
    f->m = sbr_new_mediator(f->config, &error);
    if (f->m == NULL) {
        fail(f->result, SBR_ERROR, error != NULL ? error : "a plugin did not load");
        free(error);
        return NULL;
    }
    sbr_guard_init(guard, f->config, arena);
    f->guard = guard;
    lua_State *L = lua_newstate(sbr_alloc, guard);
    if (L == NULL) {
        fail(f->result, SBR_ERROR, "out of memory making a Lua state");
        sb_mediator_free(f->m);
        f->m = NULL;
        return NULL;
    }
    guard->L = L;
    return L;
}

/* Closes the state (its finalizers run under `watchdog`), its arena and
 * the mediator. */
static void close_state(lua_State *L, sbr_guard *guard, sbr_watchdog *watchdog, sb_mediator *m) {
    sbr_guard_relax(guard, L);
    sbr_watchdog_forget_state(watchdog);
    lua_close(L); /* before the mediator goes: closing unregisters the state's targets */
    sbr_watchdog_stop(watchdog); /* closing stays under the watchdog */
    sbr_arena_free(guard->arena);
    guard->arena = NULL;
    sb_mediator_free(m);
}

/* One fresh mediator and state; runs `f` (listing or one scenario). */
static void execute(frame *f) {
    sbr_guard guard;
    lua_State *L = open_state(f, &guard, NULL);
    if (L == NULL) return;
    sbr_watchdog watchdog;
    sbr_watchdog_start(&watchdog, &guard, f->config->report_fd, f->script, f->name);
    (void)protected(f, L, protected_main);
    close_state(L, &guard, &watchdog, f->m);
    f->m = NULL;
}

/* ------------------------------------------------------ prepared states */

void sbr_script_prepare(sbr_script *s) {
    frame f = {.config = &s->config, .script = s->script, .purpose = PREPARING, .result = &s->problem};
    /* Its chunks hold no more than the limit allows the state, with room
     * for the report: what is parked in them unused stays bounded. NULL:
     * malloc will do. */
    size_t limit = s->config.max_memory_bytes;
    sbr_arena *arena = sbr_arena_new(limit > 0 && limit < SIZE_MAX - ARENA_SLACK ? limit + ARENA_SLACK : 0);
    lua_State *L = open_state(&f, &s->guard, arena);
    if (L == NULL) {
        sbr_arena_free(arena);
        return;
    }
    sbr_watchdog watchdog;
    sbr_watchdog_start(&watchdog, &s->guard, s->config.report_fd, s->script, "(the script's top level)");
    int ran = protected(&f, L, protected_main) && s->problem.message == NULL && s->problem.outcome == SBR_PASSED;
    s->top_output = f.top_output;
    s->spent = s->guard.started > 0 ? sbr_now() - s->guard.started : 0;
    if (!ran) {
        if (s->problem.outcome == SBR_PASSED) s->problem.outcome = SBR_ERROR;
        close_state(L, &s->guard, &watchdog, f.m);
        return;
    }
    /* No thread of ours may outlive this: scenarios fork from here. */
    sbr_watchdog_forget_state(&watchdog);
    sbr_watchdog_stop(&watchdog);
    s->m = f.m;
    s->L = L;
    s->ready = 1;
}

void sbr_script_run_here(sbr_script *s, size_t index, const char *name, sbr_result *result) {
    frame f = {.config = &s->config, .script = s->script, .m = s->m, .guard = &s->guard, .purpose = RUNNING,
               .index = index, .name = name, .loaded = 1, .result = result};
    sbr_guard_resume(&s->guard, s->spent);
    sbr_arena_seal(s->guard.arena); /* the scenario's own memory: malloc's, as always */
    /* Never stopped: it watches the report go up the pipe too, and ends
     * with the process. */
    sbr_watchdog_start_quiet(&s->watchdog, &s->guard, s->spent);
    lua_settop(s->L, 0);
    (void)protected(&f, s->L, protected_run);
    sbr_guard_relax(&s->guard, s->L);
    sbr_watchdog_forget_state(&s->watchdog);
}

int sbr_script_after_all(sbr_script *s, sbr_result *problem) {
    memset(problem, 0, sizeof *problem);
    if (s->L == NULL || !s->ready) return 1;
    frame f = {.config = &s->config, .script = s->script, .m = s->m, .guard = &s->guard, .purpose = RUNNING,
               .loaded = 1, .name = "(after_all)", .result = problem};
    /* A budget of its own, as a scenario's: the clock, the instructions
     * and the memory the prepared state holds. */
    sbr_guard_arm(&s->guard, s->L);
    sbr_watchdog watchdog;
    sbr_watchdog_start(&watchdog, &s->guard, s->config.report_fd, s->script, "(after_all)");
    lua_settop(s->L, 0);
    double started = sbr_now();
    (void)protected(&f, s->L, protected_after_all);
    sbr_guard_relax(&s->guard, s->L);
    sbr_watchdog_forget_state(&watchdog);
    sbr_watchdog_stop(&watchdog);
    problem->seconds = sbr_now() - started;
    return problem->outcome == SBR_PASSED && problem->message == NULL;
}

void sbr_script_close_state(sbr_script *s) {
    if (s->L == NULL) return;
    sbr_watchdog watchdog;
    sbr_watchdog_start(&watchdog, &s->guard, s->config.report_fd, s->script, "(closing the script's state)");
    close_state(s->L, &s->guard, &watchdog, s->m);
    s->L = NULL;
    s->m = NULL;
    s->ready = 0;
}

/* ---------------------------------------------------------------- API */

int sbr_list(const sbr_config *config, const char *script, sbr_listed **scenarios, size_t *count, sbr_result *problem) {
    memset(problem, 0, sizeof *problem);
    *scenarios = NULL;
    *count = 0;
    frame f = {.config = config, .script = script, .purpose = LISTING, .result = problem};
    double started = sbr_now();
    execute(&f);
    problem->seconds = sbr_now() - started;
    if (problem->message != NULL || problem->outcome != SBR_PASSED) {
        sbr_listed_free(f.listed, f.count);
        if (problem->outcome == SBR_PASSED) problem->outcome = SBR_ERROR;
        problem->name = sbr_strdup(script);
        return 0;
    }
    *scenarios = f.listed;
    *count = f.count;
    return 1;
}

void sbr_listed_free(sbr_listed *scenarios, size_t count) {
    if (scenarios == NULL) return;
    for (size_t i = 0; i < count; i++) {
        free(scenarios[i].name);
        free(scenarios[i].tags);
        free(scenarios[i].skip);
        free(scenarios[i].todo);
    }
    free(scenarios);
}

void sbr_run(const sbr_config *config, const char *script, size_t index, const char *name, sbr_result *result) {
    memset(result, 0, sizeof *result);
    result->name = sbr_strdup(name);
    frame f = {.config = config, .script = script, .purpose = RUNNING, .index = index, .name = name, .result = result};
    double started = sbr_now();
    execute(&f);
    sbr_listed_free(f.listed, f.count);
    free(f.top_output);
    result->seconds = sbr_now() - started;
}

void sbr_result_clear(sbr_result *r) {
    if (r == NULL) return;
    free(r->name);
    free(r->message);
    free(r->where);
    free(r->step);
    free(r->traceback);
    free(r->output);
    free(r->calls);
    for (size_t i = 0; i < r->step_count; i++) {
        free(r->steps[i].name);
        free(r->steps[i].status);
    }
    free(r->steps);
    memset(r, 0, sizeof *r);
}
