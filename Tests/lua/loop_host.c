/* A raw epoll loop that drives a Lua state by sb.fd() and sb.poll(), in
 * edge-triggered mode (EPOLLET: woken only when the descriptor is written
 * anew) and in level-triggered mode, with sb.poll() and with sb.poll(1).
 * Every coroutine must be resumed; a loop that waits 2 s for an event that
 * never comes while coroutines still wait has stalled (issue 40: resumes
 * queued during a poll, behind work not yet run, made no new edge).
 * Run by scripts/lua-tests.sh, and under valgrind. */
#include <switchboard.h>
#include <switchboard_lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include <pthread.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "../c/check.h"

static sb_mediator *m;

static int run(lua_State *L, const char *chunk) {
    if (luaL_dostring(L, chunk) == LUA_OK) return 1;
    fprintf(stderr, "lua: %s\n", lua_tostring(L, -1));
    lua_pop(L, 1);
    return 0;
}

static lua_Integer global_int(lua_State *L, const char *name) {
    lua_getglobal(L, name);
    lua_Integer n = lua_tointeger(L, -1);
    lua_pop(L, 1);
    return n;
}

/* Runs the loop until `resumed` reaches n, or nothing wakes it for 2 s.
 * `poll` is the chunk run at each wake-up. Returns how many were resumed. */
static lua_Integer drive(lua_State *L, int edge, const char *poll, lua_Integer n) {
    CHECK(run(L, "fd = assert(sb.fd())"));
    int fd = (int)global_int(L, "fd");
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event watch = {0};
    watch.events = EPOLLIN | (edge ? EPOLLET : 0);
    CHECK(ep >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, fd, &watch) == 0);
    while (global_int(L, "resumed") < n) {
        struct epoll_event got;
        if (epoll_wait(ep, &got, 1, 2000) != 1) break; /* stalled */
        CHECK(run(L, poll));
    }
    close(ep);
    return global_int(L, "resumed");
}

static lua_State *new_state(void) {
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    sb_lua_open(L, m);
    lua_setglobal(L, "sb");
    return L;
}

/* n coroutines wait on a Lua action that answers later; the first two are
 * answered, and each one resumed answers the one two places after it. So
 * each poll leaves a resume queued behind the ones it runs, while the
 * queue is never empty. */
static const char chain[] =
    "resumed, kept = 0, {}\n"
    "sb.target('Chain', { wait = function(p) return sb.later(function(c) kept[p.i] = c end) end })\n"
    "for i = 1, n do\n"
    "  coroutine.wrap(function()\n"
    "    assert(sb.perform('Chain', 'wait', { i = i }) == i)\n"
    "    resumed = resumed + 1\n"
    "    if kept[i + 2] then assert(kept[i + 2](i + 2)) end\n"
    "  end)()\n"
    "end\n"
    "assert(sb.pending() == n)\n"
    "kept[1](1); kept[2](2)\n";

static void test_chain(int edge, const char *poll) {
    enum { N = 1000 };
    lua_State *L = new_state();
    lua_pushinteger(L, N);
    lua_setglobal(L, "n");
    CHECK(run(L, chain));
    lua_Integer resumed = drive(L, edge, poll, N);
    if (resumed != N) {
        fprintf(stderr, "%s loop with %s: stalled after %lld of %d coroutines\n", edge ? "edge-triggered" : "level-triggered",
                poll, (long long)resumed, N);
    }
    CHECK(resumed == N);
    CHECK(run(L, "assert(sb.pending() == 0 and sb.poll() == 0)"));
    lua_close(L);
}

/* Workers.job: answers later from one worker thread, which completes every
 * call it was given as soon as it has them, while the loop polls. */
enum { JOBS = 3000 };
static sb_completion jobs[JOBS];
static int njobs, jobs_done;
static pthread_mutex_t jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t jobs_cond = PTHREAD_COND_INITIALIZER;

static sb_status job(void *u, const sb_value *params, sb_value **out) {
    (void)u, (void)out;
    pthread_mutex_lock(&jobs_lock);
    int full = njobs == JOBS;
    if (!full) jobs[njobs++] = sb_completion_take();
    pthread_cond_signal(&jobs_cond);
    pthread_mutex_unlock(&jobs_lock);
    (void)params;
    return full ? SB_EREJECTED : SB_PENDING;
}

static void *worker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&jobs_lock);
    while (jobs_done < JOBS) {
        while (jobs_done == njobs) pthread_cond_wait(&jobs_cond, &jobs_lock);
        sb_completion c = jobs[jobs_done++];
        pthread_mutex_unlock(&jobs_lock);
        (void)sb_completion_succeed(c, sb_int(1));
        pthread_mutex_lock(&jobs_lock);
    }
    pthread_mutex_unlock(&jobs_lock);
    return NULL;
}

/* Resumes pushed by another thread while the loop polls (not deterministic
 * like the chain: a stress beside it). */
static void test_worker_thread(int edge, const char *poll) {
    njobs = jobs_done = 0;
    lua_State *L = new_state();
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, worker, NULL) == 0);
    lua_pushinteger(L, JOBS);
    lua_setglobal(L, "n");
    CHECK(run(L, "resumed = 0\n"
                 "for i = 1, n do\n"
                 "  coroutine.wrap(function() assert(sb.perform('Workers', 'job') == 1); resumed = resumed + 1 end)()\n"
                 "end"));
    lua_Integer resumed = drive(L, edge, poll, JOBS);
    CHECK(resumed == JOBS);
    pthread_join(thread, NULL);
    lua_close(L);
}

/* The host drives the state from C (issue 40): the state's queue, from
 * sb_lua_queue, watched and dispatched without calling into Lua; errors
 * raised by what it resumed reach the next sb.poll(). */
static void test_dispatch_from_c(int edge) {
    enum { N = 1000 };
    lua_State *L = new_state();
    lua_pushinteger(L, N);
    lua_setglobal(L, "n");
    lua_getglobal(L, "sb");
    sb_queue *queue = sb_lua_queue(L, -1);
    lua_pop(L, 1);
    lua_newtable(L);
    CHECK(sb_lua_queue(L, -1) == NULL); /* a table that is not the module */
    lua_pop(L, 1);
    CHECK(queue != NULL);
    int fd = -1;
    CHECK_STATUS(sb_queue_fd(queue, &fd), SB_OK);
    lua_getglobal(L, "sb");
    lua_getfield(L, -1, "fd");
    lua_call(L, 0, 1);
    CHECK(lua_tointeger(L, -1) == fd);
    lua_pop(L, 2);
    CHECK(run(L, chain));
    CHECK(run(L, "sb.target('Raise', { wait = function() return sb.later(function(c) raise = c end) end })\n"
                 "coroutine.wrap(function() sb.perform('Raise', 'wait'); error('raised after') end)()\n"
                 "raise(0)"));
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event watch = {0};
    watch.events = EPOLLIN | (edge ? EPOLLET : 0);
    CHECK(ep >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, fd, &watch) == 0);
    while (global_int(L, "resumed") < N) {
        struct epoll_event got;
        if (epoll_wait(ep, &got, 1, 2000) != 1) break; /* stalled */
        CHECK_STATUS(sb_queue_dispatch(queue, 1, NULL), SB_OK);
    }
    close(ep);
    CHECK(global_int(L, "resumed") == N);
    CHECK(run(L, "local ran, errors = sb.poll()\n"
                 "assert(ran == 0 and #errors == 1 and errors[1]:find('raised after', 1, true), tostring(errors))"));
    lua_close(L);
}

/* A host that frees the queue it borrowed from the state (sb_lua_queue):
 * the queue stays the state's, its calls still come through, and
 * lua_close frees it once (it was freed under the state: ASan's double
 * free, valgrind's invalid read). */
static void test_borrowed_queue_freed(void) {
    lua_State *L = new_state();
    lua_getglobal(L, "sb");
    sb_queue *queue = sb_lua_queue(L, -1);
    lua_pop(L, 1);
    sb_queue_free(queue);
    CHECK(strstr(sb_error_message(), "lua_close frees it") != NULL);
    lua_pushinteger(L, 10);
    lua_setglobal(L, "n");
    CHECK(run(L, chain));
    CHECK(drive(L, 1, "sb.poll()", 10) == 10);
    lua_close(L);
    robustness_row("sb_queue_free of the queue a Lua state lends (sb_lua_queue), then the state polls and closes", 1,
                   "the queue is left alone with a message saying lua_close frees it; 10 coroutines resumed; freed once, by lua_close");
}

int main(void) {
    m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(m, "Workers", "job", job, NULL, NULL), SB_OK);
    static const char *const polls[] = {"sb.poll()", "sb.poll(1)"};
    for (int edge = 1; edge >= 0; edge--) {
        for (int p = 0; p < 2; p++) {
            test_chain(edge, polls[p]);
            test_worker_thread(edge, polls[p]);
        }
        test_dispatch_from_c(edge);
    }
    test_borrowed_queue_freed();
    robustness_row("sb.fd() watched by an edge-triggered epoll loop (EPOLLET), resumes queued during a poll behind "
                   "work not yet run, with sb.poll() and sb.poll(1); 1,000 chained and 3,000 from a worker thread",
                   2 * (1000 + 3000), "every coroutine resumed: a poll that leaves work writes the descriptor "
                   "again (a new edge); level-triggered the same");
    sb_mediator_free(m);
    return check_report("lua loop");
}
