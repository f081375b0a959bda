/* Faults on the Lua side, driven from a C host that embeds Lua: Lua targets
 * that fail or never return (under an instruction limit), Lua callbacks
 * called twice and from another thread, and allocation failure at every
 * allocation the module makes in a typical session. After each, the
 * mediator must still answer. Rows for docs/ROBUSTNESS.md via check.h.
 * Run by scripts/lua-tests.sh, and under valgrind. */
#include <switchboard.h>
#include <switchboard_lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../c/check.h"

static sb_mediator *m;

static sb_status echo(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    *out = sb_value_retain(sb_dict_get(params, "value"));
    return SB_OK;
}

/* The mediator still answers: a C target, always; a Lua target when L is
 * given (the state is still usable). */
static int intact(lua_State *L) {
    sb_value *params = sb_dict_new(), *out = NULL;
    sb_dict_set_new(params, "value", sb_int(7));
    int good = sb_action_perform(m, "CEcho", "value", params, 0, &out) == SB_OK && check_int(out) == 7;
    sb_value_release(out);
    out = NULL;
    if (L != NULL) good = good && sb_action_perform(m, "LuaEcho", "value", params, 0, &out) == SB_OK && check_int(out) == 7;
    sb_value_release(out);
    sb_value_release(params);
    return good;
}

static int run(lua_State *L, const char *chunk) {
    if (luaL_dostring(L, chunk) == LUA_OK) return 1;
    fprintf(stderr, "lua: %s\n", lua_tostring(L, -1));
    lua_pop(L, 1);
    return 0;
}

static lua_State *new_state(void) {
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    sb_lua_open(L, m);
    lua_setglobal(L, "sb");
    run(L, "sb.target('LuaEcho', { value = function(p) return p.value end })");
    return L;
}

/* ---------------------------------------------- Lua targets that fail */

static void test_failing_targets(void) {
    static const char *bodies[] = {
        "error('boom')", "error({ code = 1 })", "error()", "local t = nil; return t.field",
        "return ('x'):rep(-1, {})", "coroutine.wrap(function() error('inside a coroutine') end)()",
    };
    const int n = (int)(sizeof bodies / sizeof bodies[0]);
    lua_State *L = new_state();
    char chunk[256];
    for (int i = 0; i < n; i++) {
        snprintf(chunk, sizeof chunk, "sb.target('Failing', { act = function() %s end })", bodies[i]);
        CHECK(run(L, chunk));
        sb_value *out = NULL;
        CHECK_STATUS(sb_action_perform(m, "Failing", "act", NULL, 0, &out), SB_EACTION);
        CHECK(out == NULL && sb_error_message()[0] != '\0');
        CHECK(intact(L));
    }
    lua_close(L);
    robustness_row("Lua target raises (string, table, nil, runtime error, bad argument, inside a coroutine)", n,
                   "SB_EACTION with the Lua error as the message; the state stays usable");
}

/* -------------------------------------------- Lua re-entrancy without end */

static void test_endless_recursion(void) {
    lua_State *L = new_state();
    /* Through sb.perform (Lua -> C -> Lua ...), and through a callback
     * passed along each time. Lua's own limit on nested C calls stops both
     * before the mediator's depth limit would. */
    CHECK(run(L, "sb.target('Rec', {\n"
                 "  perform = function(p) return sb.perform('Rec', 'perform', p) end,\n"
                 "  callback = function(p) return p.cb(p) end,\n"
                 "})"));
    CHECK(run(L, "local r, message = sb.perform('Rec', 'perform')\n"
                 "assert(r == nil and message:find('stack overflow'), message)\n"
                 "r, message = sb.perform('Rec', 'callback', { cb = function(p) "
                 "return assert(sb.perform('Rec', 'callback', p)) end })\n"
                 "assert(r == nil and message:find('stack overflow'), message)"));
    CHECK(intact(L));
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_perform(m, "Rec", "perform", NULL, 0, &out), SB_EACTION);
    CHECK(out == NULL && ERROR_MENTIONS("stack overflow"));
    CHECK(intact(L));
    lua_close(L);
    robustness_row("Re-entrant Lua perform without end (Lua -> C -> Lua, from Lua and from C; through a callback)", 3,
                   "a Lua \"stack overflow\" error at Lua's C-call limit (about 200 levels); the state stays usable");
}

/* ---------------------------------------- Lua targets that never return */

static int instructions_left;
static void limit_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    if (--instructions_left < 0) luaL_error(L, "instruction limit reached");
}

static void test_endless_targets(void) {
    static const char *bodies[] = {
        "while true do end",
        "local t = {}; while true do t[#t % 64 + 1] = { t } end",
        "while true do sb.perform('LuaEcho', 'value', { value = 1 }) end",
        "while true do pcall(error, 'swallowed') end",
    };
    const int n = (int)(sizeof bodies / sizeof bodies[0]);
    lua_State *L = new_state();
    char chunk[256];
    for (int i = 0; i < n; i++) {
        snprintf(chunk, sizeof chunk, "sb.target('Endless', { act = function() %s end })", bodies[i]);
        CHECK(run(L, chunk));
        instructions_left = 200; /* hook calls, 10,000 instructions each */
        lua_sethook(L, limit_hook, LUA_MASKCOUNT, 10000);
        sb_value *out = NULL;
        CHECK_STATUS(sb_action_perform(m, "Endless", "act", NULL, 0, &out), SB_EACTION);
        CHECK(out == NULL && ERROR_MENTIONS("instruction limit"));
        lua_sethook(L, NULL, 0, 0);
        CHECK(intact(L));
    }
    lua_close(L);
    robustness_row("Lua target never returns (busy loop, allocating loop, loop of performs, loop swallowing "
                   "errors), under a count hook the host installs (switchboard run has one; the module has none)", n,
                   "SB_EACTION \"instruction limit reached\"; the state stays usable");
}

/* ------------------------------------- Lua callbacks twice, other thread */

static sb_value *kept;
static sb_status keep(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    sb_value_release(kept);
    kept = sb_value_retain(sb_dict_get(params, "cb"));
    *out = sb_bool(1);
    return SB_OK;
}

static void *call_from_thread(void *arg) {
    sb_value *out = NULL;
    sb_status s = sb_callback_call(kept, arg, &out);
    return (void *)(intptr_t)(s == SB_EQUEUED && out == NULL);
}

static void test_callbacks(void) {
    lua_State *L = new_state();
    CHECK(run(L, "calls = 0\n"
                 "assert(sb.perform('Keeper', 'keep', { cb = function(x) calls = calls + x; return calls end }))"));
    sb_value *one = sb_int(1), *out = NULL;
    /* Twice on the owning thread: runs twice. */
    CHECK_STATUS(sb_callback_call(kept, one, &out), SB_OK);
    CHECK(check_int(out) == 1);
    sb_value_release(out);
    CHECK_STATUS(sb_callback_call(kept, one, &out), SB_OK);
    CHECK(check_int(out) == 2);
    sb_value_release(out);
    /* From another thread, twice: queued, then run once each by sb.poll. */
    pthread_t thread;
    void *queued = NULL;
    for (int i = 0; i < 2; i++) {
        CHECK(pthread_create(&thread, NULL, call_from_thread, one) == 0);
        pthread_join(thread, &queued);
        CHECK(queued == (void *)1);
    }
    CHECK(run(L, "assert(calls == 2); assert(sb.poll() == 2); assert(calls == 4); assert(sb.poll() == 0)"));
    CHECK(intact(L));
    /* After its state is closed (the owner is gone): a clear error. */
    lua_close(L);
    CHECK_STATUS(sb_callback_call(kept, one, &out), SB_EACTION);
    CHECK(out == NULL && ERROR_MENTIONS("closed"));
    CHECK(intact(NULL));
    sb_value_release(kept);
    kept = NULL;
    sb_value_release(one);
    robustness_row("Lua callback called twice, from another thread (twice), after its state was closed", 3,
                   "runs each time on its thread; queued (SB_EQUEUED) and run once each by sb.poll; "
                   "SB_EACTION \"closed\" after close");
}

/* ------------------------------- a bounded queue of calls from threads */

#ifndef SB_LUA_MAX_QUEUED
#define SB_LUA_MAX_QUEUED 16384 /* (a header without it: the test still builds, and fails) */
#endif

enum { QUEUE_THREADS = 3 };
static long queued_by[QUEUE_THREADS], refused_by[QUEUE_THREADS];
static int refusals_named_the_queue[QUEUE_THREADS];

/* Calls the kept Lua callback until the queue refuses, or 2/3 of the bound
 * each (all three: twice the bound, when nothing refuses). */
static void *flood_from_thread(void *arg) {
    int i = (int)(intptr_t)arg;
    sb_value *one = sb_int(1);
    for (long n = 0; n < 2L * SB_LUA_MAX_QUEUED / QUEUE_THREADS; n++) {
        sb_value *out = NULL;
        sb_status s = sb_callback_call(kept, one, &out);
        sb_value_release(out);
        if (s == SB_EQUEUED) {
            queued_by[i]++;
        } else {
            refused_by[i]++;
            refusals_named_the_queue[i] = s == SB_EREJECTED && strstr(sb_error_message(), "queue") != NULL &&
                                          strstr(sb_error_message(), "full") != NULL;
            break;
        }
    }
    sb_value_release(one);
    return NULL;
}

static void test_queue_bound(void) {
    lua_State *L = new_state();
    CHECK(run(L, "calls = 0\n"
                 "assert(sb.perform('Keeper', 'keep', { cb = function(x) calls = calls + x end }))"));
    pthread_t threads[QUEUE_THREADS];
    for (int i = 0; i < QUEUE_THREADS; i++)
        CHECK(pthread_create(&threads[i], NULL, flood_from_thread, (void *)(intptr_t)i) == 0);
    long queued = 0, refused = 0;
    for (int i = 0; i < QUEUE_THREADS; i++) {
        pthread_join(threads[i], NULL);
        queued += queued_by[i];
        refused += refused_by[i];
        CHECK(refused_by[i] == 0 || refusals_named_the_queue[i]);
    }
    /* Exactly the bound waits; the threads that went on were refused (a
     * thread may finish its share before the queue fills). */
    CHECK(queued == SB_LUA_MAX_QUEUED);
    CHECK(refused >= 1 && refused <= QUEUE_THREADS);
    /* The owner drains it with sb.poll (here in two parts); then calls queue again. */
    CHECK(run(L, "assert(sb.poll(100) == 100); assert(calls == 100)"));
    char chunk[128];
    snprintf(chunk, sizeof chunk, "assert(sb.poll() == %d); assert(calls == %d)", SB_LUA_MAX_QUEUED - 100,
             SB_LUA_MAX_QUEUED);
    CHECK(run(L, chunk));
    queued_by[0] = refused_by[0] = 0;
    CHECK(pthread_create(&threads[0], NULL, flood_from_thread, (void *)0) == 0);
    pthread_join(threads[0], NULL);
    CHECK(queued_by[0] == 2L * SB_LUA_MAX_QUEUED / QUEUE_THREADS && refused_by[0] == 0);
    CHECK(intact(L));
    lua_close(L); /* drops what is still queued */
    sb_value_release(kept);
    kept = NULL;
    robustness_row("Calls queued to a Lua state from 3 threads faster than it polls", QUEUE_THREADS,
                   "at most SB_LUA_MAX_QUEUED wait; the next gets SB_EREJECTED \"queue ... full\"; "
                   "sb.poll drains it and calls queue again");
}

/* ---------------------------------- closing one of several Lua states */

static sb_status from_c(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    (void)params;
    *out = sb_string("C");
    return SB_OK;
}

/* The string `target.action` answers with, or NULL when the call fails. */
static const char *answer(const char *target, const char *action, char *buffer, size_t size) {
    sb_value *out = NULL;
    sb_status s = sb_action_perform(m, target, action, NULL, 0, &out);
    size_t length = 0;
    const char *text = s == SB_OK ? sb_value_get_string(out, &length) : NULL;
    if (text != NULL) snprintf(buffer, size, "%s", text);
    sb_value_release(out);
    return text != NULL ? buffer : NULL;
}

static const char *url_answer(const char *url, char *buffer, size_t size) {
    sb_value *out = NULL;
    sb_status s = sb_url_open(m, url, NULL, &out);
    size_t length = 0;
    const char *text = s == SB_OK ? sb_value_get_string(out, &length) : NULL;
    if (text != NULL) snprintf(buffer, size, "%s", text);
    sb_value_release(out);
    return text != NULL ? buffer : NULL;
}

#define ANSWERS(target, action, expected) \
    (answer(target, action, buffer, sizeof buffer) != NULL && strcmp(buffer, expected) == 0)
#define URL_ANSWERS(url, expected) (url_answer(url, buffer, sizeof buffer) != NULL && strcmp(buffer, expected) == 0)

static void test_close_removes_only_its_own(void) {
    char buffer[64];
    static const char registrations[] =
        "sb.target('Shared', { a = function() return '%s' end, only%s = function() return '%s' end })\n"
        "sb.target('Own%s', { x = function() return '%s' end })\n"
        "sb.degrade(function() return '%s degrades' end)\n"
        "sb.scheme('hand', function() return '%s handles' end)\n"
        "sb.route('app://routed/:id', function() return '%s routes' end)\n";
    char chunk[sizeof registrations + 64];
    lua_State *A = new_state(), *B = new_state();
    snprintf(chunk, sizeof chunk, registrations, "A", "A", "A", "A", "A", "A", "A", "A");
    CHECK(run(A, chunk));
    /* B replaces what A registered under the same names; C adds an action. */
    snprintf(chunk, sizeof chunk, registrations, "B", "B", "B", "B", "B", "B", "B", "B");
    CHECK(run(B, chunk));
    CHECK_STATUS(sb_action_register(m, "Shared", "fromC", from_c, NULL, NULL), SB_OK);
    CHECK(ANSWERS("Shared", "a", "B") && ANSWERS("Shared", "onlyA", "A"));

    lua_close(A);
    /* What B and C own stays; what only A owned is gone. */
    CHECK(ANSWERS("Shared", "a", "B"));
    CHECK(ANSWERS("Shared", "fromC", "C"));
    CHECK(ANSWERS("Shared", "onlyB", "B"));
    CHECK(ANSWERS("OwnB", "x", "B"));
    CHECK(ANSWERS("Shared", "onlyA", "B degrades")); /* missing: B's degrade handler answers */
    CHECK(ANSWERS("OwnA", "x", "B degrades"));
    CHECK(URL_ANSWERS("hand://anything/at/all", "B handles"));
    CHECK(URL_ANSWERS("app://routed/7", "B routes"));
    CHECK(intact(B));

    lua_close(B);
    CHECK(ANSWERS("Shared", "fromC", "C"));
    CHECK(answer("Shared", "a", buffer, sizeof buffer) == NULL && answer("OwnB", "x", buffer, sizeof buffer) == NULL);
    CHECK(url_answer("hand://anything", buffer, sizeof buffer) == NULL);
    CHECK(url_answer("app://routed/7", buffer, sizeof buffer) == NULL);
    CHECK(intact(NULL));
    CHECK_STATUS(sb_target_unregister(m, "Shared"), SB_OK);
    /* B owned the scheme and the pattern last: its close removed both. */
    CHECK_STATUS(sb_scheme_unregister(m, "hand"), SB_ENOTFOUND);
    CHECK_STATUS(sb_url_pattern_remove(m, "app://routed/:id"), SB_ENOTFOUND);
    robustness_row("Lua state closed after another state and C re-registered its names (actions, degrade "
                   "handler, scheme and route handlers)", 5,
                   "only what it still owns is removed: the other state's and C's registrations keep answering");
}

/* A Target_<Name>.lua file that returns a constructor is a class the state
 * registered: closing the state removes it (and its cached instance), but
 * not a class another state registered since under the same name. */
static int64_t bump_tally(void) {
    sb_value *out = NULL;
    sb_status s = sb_action_perform(m, "Tallies", "bump", NULL, SB_CACHE_TARGET, &out);
    int64_t n = s == SB_OK ? check_int(out) : -1;
    sb_value_release(out);
    return n;
}

static void test_close_removes_its_file_classes(void) {
    const char *targets = getenv("SB_TEST_TARGETS");
    if (targets == NULL) {
        fprintf(stderr, "SB_TEST_TARGETS is not set: run scripts/lua-tests.sh\n");
        CHECK(0);
        return;
    }
    char chunk[1024];
    snprintf(chunk, sizeof chunk, "sb.path = '%s/?.lua'\nassert(sb.perform('Tallies', 'bump', nil, {cache = true}) == 1)",
             targets);
    lua_State *A = new_state();
    CHECK(run(A, chunk));
    CHECK(bump_tally() == 2);
    lua_close(A);
    /* A's class is gone with its cached instance: nothing answers. */
    CHECK(bump_tally() == -1);

    /* B registers the class again after A: A's close leaves it. */
    lua_State *B = new_state();
    A = new_state();
    CHECK(run(A, chunk));
    CHECK(run(B, "sb.unregister('Tallies')"));
    CHECK(run(B, chunk));
    lua_close(A);
    int64_t after = bump_tally();
    if (after != 2) fprintf(stderr, "after: %lld (%s)\n", (long long)after, sb_error_message());
    CHECK(after == 2);
    lua_close(B);
    CHECK(bump_tally() == -1);
    CHECK(intact(NULL));
    robustness_row("Lua state closed that loaded a Target_<Name>.lua constructor (alone; after another state "
                   "loaded it again)", 2,
                   "its class and cached instance are removed; the other state's class keeps answering");
}

/* --------------------------------------------- allocation failure in Lua */

/* From allocation number `fail_at` on (0: never), every allocation fails:
 * memory has run out. (A single failure is no test: Lua collects garbage
 * and tries again.) */
static long allocations, fail_at;
static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    (void)ud;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    if (ptr == NULL || nsize > osize) {
        if (++allocations >= fail_at && fail_at > 0) return NULL;
    }
    return realloc(ptr, nsize);
}

/* -------------------------------- weak tables and emergency collections */

/* After `skip` more growing allocations, the next `refusals` fail, each once:
 * Lua then collects garbage in full and asks again, which succeeds. So full
 * collections run in the middle of whatever allocates then. */
static long skip, refusals;
static void *refusing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    static int refused;
    (void)ud;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    if ((ptr == NULL || nsize > osize) && refusals > 0) {
        if (skip > 0) {
            skip--;
        } else if (!refused) {
            refusals--;
            refused = 1;
            return NULL;
        }
        refused = 0;
    }
    return realloc(ptr, nsize);
}

/* How many keys of params are not "K" * 48 followed by digits. */
static sb_status bad_keys(void *u, const sb_value *params, sb_value **out) {
    int64_t bad = 0;
    (void)u;
    for (size_t i = 0; i < sb_value_count(params); i++) {
        const char *key = NULL;
        sb_dict_at(params, i, &key, NULL);
        size_t n = strspn(key, "K");
        if (n != 48 || key[n] == '\0' || key[n + strspn(key + n, "0123456789")] != '\0') bad++;
    }
    *out = sb_int(bad);
    return SB_OK;
}

/* A table with weak values: in the order `next` visits them, first tables
 * that only it holds, then functions, whose registry references make the
 * registry grow. The conversion converts the tables, then the functions;
 * the collections the refused growth runs then drop the tables' entries,
 * and their keys with them. The dict must still hold every key as it was. */
static void test_weak_table_collected(void) {
    static const char script[] =
        "local sb, n = ...\n"
        "local t = setmetatable({}, { __mode = 'v' })\n"
        "for i = 1, n do t[string.rep('K', 48) .. i] = true end\n"
        "local order, keep = {}, {}\n"
        "for k in pairs(t) do order[#order + 1] = k end\n"
        "for j, k in ipairs(order) do\n"
        "  if j <= n // 2 then t[k] = { j } else local f = function() return j end; keep[j] = f; t[k] = f end\n"
        "end\n"
        "return function() return sb.perform('CKeys', 'bad', t) end\n";
    lua_State *L = lua_newstate(refusing_alloc, NULL);
    luaL_openlibs(L);
    sb_lua_open(L, m);
    CHECK(luaL_loadbuffer(L, script, sizeof script - 1, "=weak") == LUA_OK);
    lua_insert(L, -2);
    lua_pushinteger(L, 2000); /* 1,000 references: the registry grows about ten times */
    CHECK(lua_pcall(L, 2, 1, 0) == LUA_OK);
    skip = 1;
    refusals = 2; /* the first collection drops entries, the second frees their keys */
    int ok = lua_pcall(L, 0, 2, 0) == LUA_OK;
    CHECK(refusals == 0); /* both collections ran */
    refusals = 0;
    if (!ok) fprintf(stderr, "  weak table: %s\n", lua_tostring(L, -1));
    CHECK(ok && lua_isinteger(L, -2) && lua_tointeger(L, -2) == 0);
    lua_close(L);
    CHECK(intact(NULL));
    robustness_row("Lua table with weak values collected in full twice while it converts (refused allocations)", 1,
                   "every key arrives as it was; nothing read after it was freed");
}

/* A typical session: open the module, register a Lua target, call it from
 * Lua and from C, convert tables both ways, open a URL. */
static const char session[] =
    "local sb = ...\n"
    "sb.target('Oom', { pair = function(p) return { p.x, p.y, tostring(p.x) } end })\n"
    "local r = assert(sb.perform('Oom', 'pair', { x = 1, y = 'two' }))\n"
    "assert(r[2] == 'two')\n"
    "assert(sb.perform('CEcho', 'value', { value = { a = { 1, 2, 3 }, b = 'text', c = function() end } }))\n"
    "assert(sb.open('app://Oom/pair?x=1&y=2'))\n";

static int open_and_run(lua_State *L) {
    sb_lua_open(L, m);
    if (luaL_loadbuffer(L, session, sizeof session - 1, "=session") != LUA_OK) return lua_error(L);
    lua_insert(L, -2);
    lua_call(L, 1, 0);
    return 0;
}

/* Runs the session with allocation `k` failing (0: none); 1 if it ran to
 * the end. Either way the state closes and the mediator answers. */
static int session_with_failure(long k) {
    allocations = 0;
    fail_at = 0;
    lua_State *L = lua_newstate(failing_alloc, NULL);
    if (L == NULL) return 0;
    luaL_openlibs(L);
    allocations = 0;
    fail_at = k;
    lua_pushcfunction(L, open_and_run);
    int ok = lua_pcall(L, 0, 0, 0) == LUA_OK;
    /* A failed session says why: Lua's own message, or the module's. */
    if (!ok) CHECK(strstr(lua_tostring(L, -1) ? lua_tostring(L, -1) : "", "memory") != NULL);
    fail_at = 0;
    lua_close(L);
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_perform(m, "Oom", "pair", NULL, 0, &out), SB_ENOTARGET); /* unregistered at close */
    CHECK(intact(NULL));
    return ok;
}

static void test_allocation_failure(void) {
    CHECK(session_with_failure(0));
    long total = allocations;
    CHECK(total > 50);
    long failed = 0;
    for (long k = 1; k <= total; k++) failed += !session_with_failure(k);
    CHECK(failed > 0);
    /* One session, failed at each of its allocations in turn: how many it
     * makes depends on the environment (path lengths move the collector),
     * so the row counts the session, not the allocations. */
    robustness_row("Lua allocator fails from allocation k on, for every allocation k of a typical session "
                   "(each of its allocations in turn)", 1,
                   "the session stops with an error about memory; no crash or leak; "
                   "lua_close unregisters its targets");
}

int main(void) {
    m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(m, "CEcho", "value", echo, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "Keeper", "keep", keep, NULL, NULL), SB_OK);
    CHECK_STATUS(sb_action_register(m, "CKeys", "bad", bad_keys, NULL, NULL), SB_OK);
    test_failing_targets();
    test_endless_targets();
    test_endless_recursion();
    test_callbacks();
    test_queue_bound();
    test_close_removes_only_its_own();
    test_close_removes_its_file_classes();
    test_allocation_failure();
    test_weak_table_collected();
    sb_mediator_free(m);
    return check_report("lua faults");
}
