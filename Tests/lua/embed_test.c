/* A C host that embeds Lua and binds the module to its own mediator with
 * sb_lua_open; then closes the state while C still holds a Lua callback.
 * Run under valgrind by scripts/lua-tests.sh. */
#include <switchboard.h>
#include <switchboard_lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include <pthread.h>

#include "../c/check.h"

static sb_value *kept; /* a Lua callback C keeps past lua_close */

static sb_status keep(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    kept = sb_value_retain(sb_dict_get(params, "cb"));
    *out = sb_bool(kept != NULL);
    return SB_OK;
}

/* Pending.wait: takes its completion and answers later, when main says. */
static sb_completion pending[2];
static int npending;

static sb_status wait_later(void *u, const sb_value *params, sb_value **out) {
    (void)u, (void)params, (void)out;
    if (npending == 2) return SB_EREJECTED;
    pending[npending++] = sb_completion_take();
    return SB_PENDING;
}

/* What the module charged to the host's budget (sb_lua_set_charge). */
static long long charged;

static int count_charge(void *u, long long bytes) {
    (void)u;
    charged += bytes;
    return 1;
}

/* Another thread churns the registry under a Lua target's name while the
 * state calls it (direct.c's path: the answer is the Lua action's, the C
 * action's or ENOTARGET, the caller's table never changes, nothing breaks),
 * and a second state's Lua target is called from the first. */
static sb_mediator *churned;
static volatile int churn_stop;

static sb_status hundred(void *u, const sb_value *params, sb_value **out) {
    (void)u, (void)params;
    *out = sb_int(100);
    return SB_OK;
}

static void observer(void *u, const sb_call_event *event) {
    (void)u, (void)event;
}

static void *churn(void *arg) {
    (void)arg;
    for (int i = 0; !churn_stop; i++) {
        for (volatile int spin = 0; spin < 20000; spin++) {}
        uint64_t id;
        if (i % 3 == 0) (void)sb_action_register(churned, "Churned", "a", hundred, NULL, NULL);
        else if (i % 3 == 1) (void)sb_target_unregister(churned, "Churned");
        else if (sb_observer_add(churned, observer, NULL, NULL, &id) == SB_OK) (void)sb_observer_remove(churned, id);
    }
    return NULL;
}

static int run(lua_State *L, const char *chunk);

static void churned_registry(void) {
    churned = sb_mediator_new();
    lua_State *L = luaL_newstate(), *other = luaL_newstate();
    luaL_openlibs(L);
    luaL_openlibs(other);
    CHECK(sb_lua_open(L, churned) == 1);
    lua_setglobal(L, "sb");
    CHECK(sb_lua_open(other, churned) == 1);
    lua_setglobal(other, "sb");
    CHECK(run(other, "sb.target('Other', { a = function(p) return p.n + 1000 end })"));
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, churn, NULL) == 0);
    CHECK(run(L, "local seen = {}\n"
                 "for i = 1, 5000 do\n"
                 "  if i % 7 == 0 then sb.target('Churned', { a = function(p) p.n = 99; p.x.y = 0; return 7 end }) end\n"
                 "  local t = { n = 1, x = { y = 2 } }\n"
                 "  local r, message, code = sb.perform('Churned', 'a', t)\n"
                 "  assert(t.n == 1 and t.x.y == 2, 'the caller sees the target change its table')\n"
                 "  assert(r == 7 or r == 100 or code == 'ENOTARGET', tostring(r) .. ' ' .. tostring(message))\n"
                 "  seen[r or code] = true\n"
                 "  assert(sb.perform('Other', 'a', { n = 1 }) == 1001)\n"
                 "end\n"
                 "assert(seen[7], 'the Lua target never answered')"));
    churn_stop = 1;
    pthread_join(thread, NULL);
    lua_close(L);
    lua_close(other);
    sb_mediator_free(churned);
}

static int run(lua_State *L, const char *chunk) {
    if (luaL_dostring(L, chunk) != LUA_OK) {
        fprintf(stderr, "lua: %s\n", lua_tostring(L, -1));
        lua_pop(L, 1);
        return 0;
    }
    return 1;
}

int main(void) {
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(m, "Keeper", "keep", keep, NULL, NULL), SB_OK);

    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    CHECK(sb_lua_open(L, m) == 1);
    lua_setglobal(L, "sb");
    CHECK(run(L, "sb.target('LuaT', { twice = function(p) return p.n * 2 end })\n"
                 "assert(sb.perform('Keeper', 'keep', { cb = function(x) return x .. '!' end }))\n"
                 "assert(sb.perform('LuaT', 'twice', { n = 2 }) == 4)"));

    /* While the state lives, C reaches both. */
    sb_value *params = sb_dict_new(), *out = NULL, *arg = sb_string("hi");
    sb_dict_set_new(params, "n", sb_int(21));
    CHECK_STATUS(sb_action_perform(m, "LuaT", "twice", params, 0, &out), SB_OK);
    CHECK(check_int(out) == 42);
    sb_value_release(out);
    CHECK_STATUS(sb_callback_call(kept, arg, &out), SB_OK);
    CHECK_STR(sb_value_get_string(out, NULL), "hi!");
    sb_value_release(out);
    /* The shared mediator is another mediator: the Lua target is not there. */
    CHECK_STATUS(sb_action_perform(sb_mediator_shared(), "LuaT", "twice", params, 0, &out), SB_ENOTARGET);

    lua_close(L);

    /* After the state is gone: its targets are unregistered, and the kept
     * callback fails with a clear error instead of touching freed memory. */
    CHECK_STATUS(sb_action_perform(m, "LuaT", "twice", params, 0, &out), SB_ENOTARGET);
    CHECK_STATUS(sb_callback_call(kept, arg, &out), SB_EACTION);
    CHECK(out == NULL && ERROR_MENTIONS("closed"));
    sb_value_release(kept);

    /* A state closed while a coroutine waits for a call that C completes
     * after lua_close: nothing is touched after it is freed, nothing leaks
     * (valgrind); the call is cancelled as the state's queue goes (nobody
     * is left to take its answer), so the work may stop and its late
     * completion is refused. */
    CHECK_STATUS(sb_action_register(m, "Pending", "wait", wait_later, NULL, NULL), SB_OK);
    L = luaL_newstate();
    luaL_openlibs(L);
    CHECK(sb_lua_open(L, m) == 1);
    lua_setglobal(L, "sb");
    sb_lua_set_charge(L, count_charge, NULL);
    CHECK(run(L, "local a = coroutine.create(function() return sb.perform('Pending', 'wait', { big = string.rep('x', 1000) }) end)\n"
                 "assert(coroutine.resume(a))\n"
                 "assert(coroutine.status(a) == 'suspended' and sb.pending() == 1)\n"
                 "assert(sb.fd())"));
    CHECK(npending == 1);
    CHECK(charged >= 1024); /* the suspended call's wait */
    lua_close(L);
    CHECK(charged == 0);    /* given back as the state closed */
    CHECK(sb_completion_cancelled(pending[0]) == 1);
    CHECK_STATUS(sb_completion_succeed(pending[0], sb_string("too late")), SB_ECANCELED);
    CHECK_STATUS(sb_completion_succeed(pending[0], sb_string("twice")), SB_ENOTFOUND);

    sb_value_release(params);
    sb_value_release(arg);
    sb_mediator_free(m);
    churned_registry();
    return check_report("lua embed");
}
