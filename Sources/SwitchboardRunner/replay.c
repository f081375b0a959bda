/*
 * `switchboard replay` in a session: the scenario API is loaded for its
 * trace writer (so a replayed result is written as a record was), then the
 * replay chunk (ReplayChunk.swift), called with that writer, wait(fd) and
 * the names of the steps a trace records;
 * each line of the trace is handed to the function it returns.
 */
#include "internal.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define REPLAY_KEY "switchboard.replay"
#define STEPS_KEY "switchboard.replay.steps"

/* helpers.keep_json(writer, steps): the prelude hands over its JSON writer
 * and the names of the module's functions a trace records. */
static int h_keep_json(lua_State *L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_pushvalue(L, 2);
    lua_setfield(L, LUA_REGISTRYINDEX, STEPS_KEY);
    lua_pushvalue(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, REPLAY_KEY);
    return 0;
}

static int protected_prepare(lua_State *L) {
    sbr_session *s = lua_touserdata(L, 1);
    const char *source = lua_touserdata(L, 2);
    size_t length = (size_t)lua_tointeger(L, 3);
    if (luaL_loadbufferx(L, s->config.prelude, s->config.prelude_length, "=(scenario API)", "t") != LUA_OK) {
        return lua_error(L);
    }
    lua_createtable(L, 0, 3);
    sbr_push_file_methods(L); /* what Lua targets write is bounded as in a scenario */
    lua_setfield(L, -2, "file_methods");
    lua_pushcfunction(L, h_keep_json);
    lua_setfield(L, -2, "keep_json");
    lua_pushliteral(L, "(replay)");
    lua_setfield(L, -2, "script");
    lua_call(L, 1, 0);
    if (lua_getfield(L, LUA_REGISTRYINDEX, REPLAY_KEY) != LUA_TFUNCTION) {
        return luaL_error(L, "the scenario API did not hand over its JSON writer");
    }
    if (luaL_loadbufferx(L, source, length, "=(replay)", "t") != LUA_OK) return lua_error(L);
    lua_insert(L, -2);
    lua_pushcfunction(L, sbr_lua_wait); /* for the answers of calls that suspend */
    lua_getfield(L, LUA_REGISTRYINDEX, STEPS_KEY);
    lua_call(L, 3, 1);
    luaL_checktype(L, -1, LUA_TFUNCTION);
    lua_setfield(L, LUA_REGISTRYINDEX, REPLAY_KEY);
    return 0;
}

static int protected_line(lua_State *L) {
    const char *line = lua_touserdata(L, 1);
    size_t length = (size_t)lua_tointeger(L, 2);
    char **answer = lua_touserdata(L, 3);
    lua_getfield(L, LUA_REGISTRYINDEX, REPLAY_KEY);
    lua_pushlstring(L, line, length);
    lua_call(L, 1, 1);
    if (lua_type(L, -1) != LUA_TSTRING) return luaL_error(L, "the replay gave no answer");
    *answer = sbr_copy_text(L, -1);
    if (*answer == NULL) return luaL_error(L, "out of memory");
    return 0;
}

/* The error of a failed pcall: a tripped limit names itself. */
static char *failure(sbr_session *s) {
    const char *tripped = sbr_guard_tripped(&s->guard);
    char *message = tripped != NULL ? sbr_strdup(tripped) : sbr_copy_text(s->L, -1);
    lua_pop(s->L, 1);
    return message != NULL ? message : sbr_strdup("(error object is not a string)");
}

pid_t sbr_replay_fork(int *channel) {
    *channel = -1;
    if (sbr_settle_threads() != 1) return -1; /* a copy would hold this thread only */
    int fds[2];
    if (pipe(fds) != 0) return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid > 0) {
        close(fds[1]);
        *channel = fds[0];
        return pid;
    }
#ifdef __linux__
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(SBR_STUCK_EXIT);
#else
    (void)parent;
#endif
    (void)setsid(); /* a group of its own, which the parent can end */
    sbr_signals_default();
    sbr_outputs_forget_all();
    sbr_watchdogs_quiet = 1;
    sbr_close_descriptors_except(fds[1]); /* the TAP stream, the JUnit file: not a plugin's to write */
    *channel = fds[1];
    return 0;
}

int sbr_session_replay_prepare(sbr_session *s, const char *source, size_t length, char **error) {
    *error = NULL;
    if (s == NULL || source == NULL) return 0;
    lua_pushcfunction(s->L, protected_prepare);
    lua_pushlightuserdata(s->L, s);
    lua_pushlightuserdata(s->L, (void *)source);
    lua_pushinteger(s->L, (lua_Integer)length);
    if (lua_pcall(s->L, 3, 0, 0) != LUA_OK) {
        *error = failure(s);
        return 0;
    }
    return 1;
}

int sbr_session_replay_line(sbr_session *s, const char *line, size_t length, char **answer, char **error) {
    *answer = NULL;
    *error = NULL;
    if (s == NULL || line == NULL) return 0;
    lua_pushcfunction(s->L, protected_line);
    lua_pushlightuserdata(s->L, (void *)line);
    lua_pushinteger(s->L, (lua_Integer)length);
    lua_pushlightuserdata(s->L, answer);
    if (lua_pcall(s->L, 3, 0, 0) != LUA_OK) {
        free(*answer);
        *answer = NULL;
        *error = failure(s);
        return 0;
    }
    return 1;
}
