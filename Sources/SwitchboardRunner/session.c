/*
 * One mediator and Lua state for `switchboard call` and `switchboard routes`:
 * the same plugins, Lua targets, sandbox and memory limit as a scenario.
 */
#include "internal.h"
#include "switchboard_lua_source.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int protected_prepare(lua_State *L) {
    sbr_session *s = lua_touserdata(L, 1);
    sbr_prepare_state(L, &s->config, s->m);
    return 0;
}

static char *take_message(lua_State *L) {
    char *message = sbr_copy_text(L, -1);
    return message != NULL ? message : sbr_strdup("(error object is not a string)");
}

sbr_session *sbr_session_open(const sbr_config *config, char **error) {
    *error = NULL;
    sbr_session *s = calloc(1, sizeof *s);
    if (s == NULL) {
        *error = sbr_strdup("out of memory");
        return NULL;
    }
    s->config = *config;
    s->m = sbr_new_mediator(config, error);
    if (s->m == NULL) {
        free(s);
        return NULL;
    }
    sbr_guard_init(&s->guard, config, NULL);
    s->L = lua_newstate(sbr_alloc, &s->guard);
    if (s->L == NULL) {
        *error = sbr_strdup("out of memory making a Lua state");
        sbr_session_close(s);
        return NULL;
    }
    s->guard.L = s->L;
    lua_pushcfunction(s->L, protected_prepare);
    lua_pushlightuserdata(s->L, s);
    if (lua_pcall(s->L, 1, 0, 0) != LUA_OK) {
        *error = take_message(s->L);
        sbr_session_close(s);
        return NULL;
    }
    sbr_guard_arm(&s->guard, s->L);
    sbr_watchdog_start(&s->watchdog, &s->guard, -1, "switchboard", "the session");
    return s;
}

sb_mediator *sbr_session_mediator(sbr_session *s) {
    return s != NULL ? s->m : NULL;
}

/* `name` is Target_<Name>.lua with a plain <Name>: the files discovery finds. */
static const char *target_name(const char *file, char *name, size_t size) {
    size_t n = strlen(file);
    if (n <= 11 || strncmp(file, "Target_", 7) != 0 || strcmp(file + n - 4, ".lua") != 0) return NULL;
    size_t length = n - 11;
    if (length >= size) return NULL;
    for (size_t i = 0; i < length; i++) {
        char c = file[7 + i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return NULL;
    }
    memcpy(name, file + 7, length);
    name[length] = '\0';
    return name;
}

/* sb.target(name, dofile(file)), protected. */
static int protected_load(lua_State *L) {
    const char *file = lua_touserdata(L, 1);
    const char *name = lua_touserdata(L, 2);
    if (sb__lua_load_source(L, file) != LUA_OK) return lua_error(L);
    lua_call(L, 0, 1);
    if (!lua_istable(L, -1)) {
        return luaL_error(L, "%s returned a %s, not a table of actions", file, luaL_typename(L, -1));
    }
    lua_getglobal(L, "sb");
    lua_getfield(L, -1, "target");
    lua_pushstring(L, name);
    lua_pushvalue(L, -4);
    lua_call(L, 2, 0);
    return 0;
}

static int load_file(sbr_session *s, const char *file, const char *name, char **error) {
    lua_pushcfunction(s->L, protected_load);
    lua_pushlightuserdata(s->L, (void *)file);
    lua_pushlightuserdata(s->L, (void *)name);
    if (lua_pcall(s->L, 2, 0, 0) != LUA_OK) {
        *error = take_message(s->L);
        lua_pop(s->L, 1);
        return 0;
    }
    /* For the catalogue, as the Lua module's own discovery says it. */
    char origin[4200];
    snprintf(origin, sizeof origin, "Lua file %s", file);
    (void)sb_target_set_origin(s->m, name, origin);
    return 1;
}

int sbr_session_load_lua_targets(sbr_session *s, char **error) {
    *error = NULL;
    if (s == NULL) return 0;
    for (size_t d = 0; d < s->config.target_dir_count; d++) {
        const char *dir = s->config.target_dirs[d];
        DIR *listing = opendir(dir);
        if (listing == NULL) {
            size_t n = strlen(dir) + 64;
            *error = malloc(n);
            if (*error != NULL) snprintf(*error, n, "cannot read the targets directory %s", dir);
            return 0;
        }
        struct dirent *entry;
        char name[200], file[4096];
        int ok = 1;
        while (ok && (entry = readdir(listing)) != NULL) {
            if (target_name(entry->d_name, name, sizeof name) == NULL) continue;
            if (snprintf(file, sizeof file, "%s/%s", dir, entry->d_name) >= (int)sizeof file) continue;
            ok = load_file(s, file, name, error);
        }
        closedir(listing);
        if (!ok) return 0;
    }
    return 1;
}

static int protected_dofile(lua_State *L) {
    const char *file = lua_touserdata(L, 1);
    if (sb__lua_load_source(L, file) != LUA_OK) return lua_error(L);
    lua_call(L, 0, 0);
    return 0;
}

int sbr_session_run_file(sbr_session *s, const char *path, char **error) {
    *error = NULL;
    if (s == NULL || path == NULL) return 0;
    lua_pushcfunction(s->L, protected_dofile);
    lua_pushlightuserdata(s->L, (void *)path);
    if (lua_pcall(s->L, 1, 0, 0) != LUA_OK) {
        const char *tripped = sbr_guard_tripped(&s->guard);
        *error = tripped != NULL ? sbr_strdup(tripped) : take_message(s->L);
        lua_pop(s->L, 1);
        return 0;
    }
    return 1;
}

void sbr_session_close(sbr_session *s) {
    if (s == NULL) return;
    if (s->L != NULL) {
        sbr_guard_relax(&s->guard, s->L);
        sbr_watchdog_forget_state(&s->watchdog);
        lua_close(s->L);
    }
    sbr_watchdog_stop(&s->watchdog);
    sb_mediator_free(s->m);
    free(s);
}
