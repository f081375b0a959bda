/* Calls made while a Lua state closes (issue 43): a __gc finalizer, or a C
 * `done` the close itself runs, calls a Lua action that answers later
 * (sb.later). Lua runs no finalizer for an object made during lua_close,
 * so the glue must fail those calls itself: each `done` runs exactly once,
 * with SB_EACTION and a message that says the state closed; every call's
 * end event comes; what a suspended coroutine was charged is given back.
 * Run by scripts/lua-tests.sh, and under valgrind (nothing leaks). */
#include <switchboard.h>
#include <switchboard_lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../c/check.h"

static sb_mediator *m;

/* What one asynchronous call's `done` saw. */
typedef struct outcome {
    int runs;
    sb_status status;
    char message[256];
    struct outcome *then; /* a call this `done` starts, as the close runs it */
} outcome;

static void record(outcome *o, sb_status status, sb_value *result) {
    o->runs++;
    o->status = status;
    snprintf(o->message, sizeof o->message, "%s", status == SB_OK ? "" : sb_error_message());
    sb_value_release(result);
}

static void done(void *userdata, sb_status status, sb_value *result) {
    outcome *o = userdata;
    record(o, status, result);
    if (o->then != NULL) {
        /* The close failed this call: start another on the closing state. */
        if (sb_action_perform_async(m, "Slow", "answer", NULL, NULL, done, o->then) != SB_PENDING) o->then->runs = -100;
    }
}

/* What the calls Starter.start makes saw, by params.slot. */
enum { SLOTS = 64 };
static outcome slots[SLOTS];

/* Starter.start: an asynchronous call of Slow.answer, from an action (so
 * from Lua, in a finalizer). */
static sb_status start(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    int64_t slot = check_int(sb_dict_get(params, "slot"));
    if (slot < 0 || slot >= SLOTS) return SB_EINVAL;
    sb_status status = sb_action_perform_async(m, "Slow", "answer", NULL, NULL, done, &slots[slot]);
    *out = sb_bool(status == SB_PENDING);
    return SB_OK;
}

/* Every call to Slow ends: start and end events counted. */
static int starts, ends;

static void observe(void *u, const sb_call_event *event) {
    (void)u;
    if (strcmp(event->target, "Slow") != 0) return;
    if (event->phase == SB_CALL_START) starts++;
    else ends++;
}

static long long charged;

static int count_charge(void *u, long long bytes) {
    (void)u;
    charged += bytes;
    return 1;
}

static int run(lua_State *L, const char *chunk) {
    if (luaL_dostring(L, chunk) == LUA_OK) return 1;
    fprintf(stderr, "lua: %s\n", lua_tostring(L, -1));
    lua_pop(L, 1);
    return 0;
}

/* A state with Slow.answer, which keeps `complete` and never calls it.
 * Objects with finalizers are kept in `alive`: their finalizers run when
 * the state closes, not at a collection before. */
static lua_State *new_state(void) {
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    sb_lua_open(L, m);
    lua_setglobal(L, "sb");
    sb_lua_set_charge(L, count_charge, NULL);
    CHECK(run(L, "kept, alive = {}, {}\n"
                 "sb.target('Slow', { answer = function() return sb.later(function(c) kept[#kept + 1] = c end) end })"));
    return L;
}

static void check_failed_by_close(const outcome *o) {
    CHECK(o->runs == 1);
    CHECK_STATUS(o->status, SB_EACTION);
    CHECK(strstr(o->message, "closed") != NULL);
}

/* A __gc finalizer starts a call from C (an action it calls). */
static void test_finalizer_starts_a_call(void) {
    memset(slots, 0, sizeof slots);
    lua_State *L = new_state();
    CHECK(run(L, "alive[1] = setmetatable({}, { __gc = function() assert(sb.perform('Starter', 'start', { slot = 0 })) end })"));
    lua_close(L);
    check_failed_by_close(&slots[0]);
}

/* A call's `done`, run by the close (its `complete` is collected then),
 * starts another call on the closing state, whose `done` (run when the
 * module's close fails it) starts a third, after the module closed. */
static void test_done_run_by_the_close_starts_a_call(void) {
    outcome third = {0}, second = {0}, first = {0};
    first.then = &second;
    second.then = &third;
    lua_State *L = new_state();
    CHECK_STATUS(sb_action_perform_async(m, "Slow", "answer", NULL, NULL, done, &first), SB_PENDING);
    lua_close(L);
    CHECK(first.runs == 1 && first.status == SB_EACTION);
    check_failed_by_close(&second);
    check_failed_by_close(&third); /* refused at once: the state that owns the action is closed */
}

/* A __gc finalizer starts a coroutine that calls and is suspended. */
static void test_finalizer_suspends_a_coroutine(void) {
    lua_State *L = new_state();
    long long registered = charged; /* what stays charged: the target */
    CHECK(run(L, "alive[1] = setmetatable({}, { __gc = function()\n"
                 "  coroutine.wrap(function() sb.perform('Slow', 'answer', { big = ('x'):rep(100) }) end)()\n"
                 "  assert(sb.pending() == 1)\n"
                 "end })"));
    lua_close(L);
    CHECK(charged == registered); /* the wait's charge given back: its box let go */
}

/* Maker.make: a C callback whose destructor counts. */
static int made, destroyed;

static sb_status nothing(void *u, const sb_value *args, sb_value **out) {
    (void)u, (void)args, (void)out;
    return SB_OK;
}

static void destroy(void *u) {
    (void)u;
    destroyed++;
}

static sb_status make(void *u, const sb_value *params, sb_value **out) {
    (void)u, (void)params;
    made++;
    *out = sb_callback_new(nothing, NULL, destroy);
    return *out != NULL ? SB_OK : SB_ENOMEM;
}

/* A __gc finalizer gets a C callback and a cancellation token: what they
 * hold is let go (the callback's destructor runs once; valgrind: the token
 * is freed), as for those made before the close. */
static void test_finalizer_gets_values(void) {
    made = destroyed = 0;
    lua_State *L = new_state();
    CHECK(run(L, "before = sb.perform('Maker', 'make')\n"
                 "alive[1] = setmetatable({}, { __gc = function()\n"
                 "  held = { sb.perform('Maker', 'make'), sb.cancellation() }\n"
                 "end })"));
    lua_close(L);
    CHECK(made == 2 && destroyed == 2);
}

/* A module opened inside a finalizer as the state closes would never be
 * closed (Lua would not finalize it), and what it registered would outlive
 * the state: a C call of it ran the freed state (SIGSEGV). It is refused. */
static int reopen(lua_State *L) {
    return sb_lua_open(L, m);
}

static void test_module_opened_while_the_state_closes(void) {
    lua_State *L = new_state();
    lua_register(L, "reopen", reopen);
    CHECK(run(L, "alive[1] = setmetatable({}, { __gc = function()\n"
                 "  local ok, message = pcall(function() reopen().target('Ghost', { a = function() return 1 end }) end)\n"
                 "  assert(not ok and message:find('finalizer', 1, true))\n"
                 "  assert(sb.perform('Starter', 'start', { slot = 0 }))\n"
                 "end })"));
    memset(slots, 0, sizeof slots);
    lua_close(L);
    check_failed_by_close(&slots[0]); /* the finalizer ran to its end */
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_perform(m, "Ghost", "a", NULL, 0, &out), SB_ENOTARGET);
}

/* Work.job: answered later by a worker thread, which completes the calls
 * it was given while the state polls, and while it closes. */
enum { ROUNDS = 60, JOBS = 40 };
static sb_completion jobs[JOBS];
static int njobs, jobs_done;
static pthread_mutex_t jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t jobs_cond = PTHREAD_COND_INITIALIZER;

static sb_status job(void *u, const sb_value *params, sb_value **out) {
    (void)u, (void)params, (void)out;
    pthread_mutex_lock(&jobs_lock);
    int full = njobs == JOBS;
    if (!full) jobs[njobs++] = sb_completion_take();
    pthread_cond_signal(&jobs_cond);
    pthread_mutex_unlock(&jobs_lock);
    return full ? SB_EREJECTED : SB_PENDING;
}

static int jobs_end; /* no more jobs come: the state closed */

static void *worker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&jobs_lock);
    for (;;) {
        while (jobs_done == njobs && !jobs_end) pthread_cond_wait(&jobs_cond, &jobs_lock);
        if (jobs_done == njobs) break;
        sb_completion c = jobs[jobs_done++];
        pthread_mutex_unlock(&jobs_lock);
        for (volatile int spin = 0; spin < (jobs_done * 7919) % 20000; spin++) {}
        (void)sb_completion_succeed(c, sb_int(1));
        pthread_mutex_lock(&jobs_lock);
    }
    pthread_mutex_unlock(&jobs_lock);
    return NULL;
}

/* The state closes while another thread ends the calls its coroutines wait
 * for (resumes pushed as the queue closes), after a varying number of
 * polls: nothing is touched after it is freed, nothing leaks (valgrind),
 * and every call still ends. */
static void test_close_while_a_worker_completes(void) {
    for (int round = 0; round < ROUNDS; round++) {
        njobs = jobs_done = jobs_end = 0;
        lua_State *L = new_state();
        pthread_t thread;
        CHECK(pthread_create(&thread, NULL, worker, NULL) == 0);
        char chunk[256];
        snprintf(chunk, sizeof chunk,
                 "for i = 1, %d do coroutine.wrap(function() sb.perform('Work', 'job'); sb.perform('Work', 'job') end)() end\n"
                 "for _ = 1, %d do sb.poll() end", JOBS / 2, round % 4);
        CHECK(run(L, chunk));
        lua_close(L);
        pthread_mutex_lock(&jobs_lock);
        jobs_end = 1;
        pthread_cond_signal(&jobs_cond);
        pthread_mutex_unlock(&jobs_lock);
        pthread_join(thread, NULL);
    }
}

/* Many at once, and calls answered by the close while others run. */
static void test_many(void) {
    enum { N = 50 };
    memset(slots, 0, sizeof slots);
    lua_State *L = new_state();
    long long registered = charged;
    for (int i = 0; i < N; i++) {
        char chunk[256];
        snprintf(chunk, sizeof chunk,
                 "alive[#alive + 1] = setmetatable({}, { __gc = function()\n"
                 "  assert(sb.perform('Starter', 'start', { slot = %d }))%s\n"
                 "end })", i,
                 i % 2 ? "; coroutine.wrap(function() sb.perform('Slow', 'answer') end)()" : "");
        CHECK(run(L, chunk));
    }
    lua_close(L);
    for (int i = 0; i < N; i++) check_failed_by_close(&slots[i]);
    CHECK(charged == registered);
}

int main(void) {
    m = sb_mediator_new();
    uint64_t id;
    CHECK_STATUS(sb_action_register(m, "Starter", "start", start, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "Maker", "make", make, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "Work", "job", job, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_observer_add(m, observe, NULL, NULL, &id), SB_OK);

    test_finalizer_starts_a_call();
    test_done_run_by_the_close_starts_a_call();
    test_finalizer_suspends_a_coroutine();
    test_many();
    test_finalizer_gets_values();
    test_close_while_a_worker_completes();
    test_module_opened_while_the_state_closes();
    CHECK(starts > 0 && ends == starts);
    robustness_row("Lua action answering later (sb.later) called while its state closes: from a __gc finalizer, "
                   "from a C done the close runs, from a coroutine a finalizer starts", 80,
                   "each call fails once with SB_EACTION (the state closed); every end event comes; "
                   "the waits' charges are given back; nothing leaks (valgrind)");
    robustness_row("Lua state closed while another thread ends the calls its coroutines wait for", ROUNDS,
                   "no access after free, no leak (valgrind); the calls end");
    robustness_row("Lua module opened (sb_lua_open) inside a __gc finalizer as its state closes, then registering "
                   "a target", 1, "refused with a Lua error naming the finalizer; nothing outlives the state "
                   "(a C call of the target ran the freed state before: SIGSEGV)");
    robustness_row("C callback and cancellation token handed to Lua while its state closes (a __gc finalizer)", 2,
                   "let go by the close although Lua never finalizes them: the callback's destructor runs once");
    sb_mediator_free(m);
    return check_report("lua close");
}
