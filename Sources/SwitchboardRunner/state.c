/*
 * What every runner state gets: the standard libraries, the sandbox, the
 * switchboard module bound to the state's own mediator, and sb.path.
 */
/* realpath is XSI. */
#define _XOPEN_SOURCE 700

#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *sbr_strdup(const char *s) {
    if (s == NULL) return NULL;
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (copy != NULL) memcpy(copy, s, n);
    return copy;
}

int sbr_take_stdout(void) {
    fflush(stdout);
    int report = dup(STDOUT_FILENO);
    if (report < 0) return -1;
    if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        close(report);
        return -1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    return report;
}

sb_mediator *sbr_new_mediator(const sbr_config *config, char **error) {
    sb_mediator *m = sb_mediator_new();
    if (m == NULL) {
        *error = sbr_strdup("out of memory making a mediator");
        return NULL;
    }
    for (size_t i = 0; i < config->plugin_count; i++) {
        if (sb_load_plugin(m, config->plugins[i]) != SB_OK) {
            const char *message = sb_last_error();
            size_t n = strlen(message) + 1;
            *error = malloc(n);
            if (*error != NULL) memcpy(*error, message, n);
            sb_mediator_free(m);
            return NULL;
        }
    }
    return m;
}

/* What a sandboxed function does instead: refuse, naming itself. */
static int refused(lua_State *L) {
    return luaL_error(L, "%s is not available in scenarios (run with --allow-os to allow it)",
                      lua_tostring(L, lua_upvalueindex(1)));
}

/* Replaces table[field] (the table at the top of the stack) with `refused`. */
static void refuse(lua_State *L, const char *qualified, const char *field) {
    lua_pushstring(L, qualified);
    lua_pushcclosure(L, refused, 1);
    lua_setfield(L, -2, field);
}

/* load, loadfile and dofile, forced to source text: a precompiled chunk
 * can do anything to memory. */
static int text_load(lua_State *L) {
    int given = lua_gettop(L); /* an explicit nil env is not the same as none */
    lua_settop(L, 4);
    lua_pushvalue(L, lua_upvalueindex(1)); /* the original load */
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_pushliteral(L, "t");
    if (given < 4) {
        lua_call(L, 3, LUA_MULTRET);
    } else {
        lua_pushvalue(L, 4);
        lua_call(L, 4, LUA_MULTRET);
    }
    return lua_gettop(L) - 4;
}

static int text_loadfile(lua_State *L) {
    const char *path = luaL_optstring(L, 1, NULL);
    int env = lua_gettop(L) >= 3;
    if (luaL_loadfilex(L, path, "t") != LUA_OK) {
        luaL_pushfail(L);
        lua_insert(L, -2);
        return 2;
    }
    if (env) {
        lua_pushvalue(L, 3);
        if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
    }
    return 1;
}

static int text_dofile(lua_State *L) {
    const char *path = luaL_optstring(L, 1, NULL);
    lua_settop(L, 1);
    if (luaL_loadfilex(L, path, "t") != LUA_OK) return lua_error(L);
    lua_call(L, 0, LUA_MULTRET);
    return lua_gettop(L) - 1;
}

/* package.searchers[2] for source files only. */
static int text_searcher(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "searchpath");
    lua_pushstring(L, name);
    lua_getfield(L, -3, "path");
    lua_call(L, 2, 2);
    if (lua_isnil(L, -2)) {
        lua_pushfstring(L, "\n\t%s", lua_tostring(L, -1));
        return 1;
    }
    const char *file = lua_tostring(L, -2);
    if (luaL_loadfilex(L, file, "t") != LUA_OK) {
        return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, file, lua_tostring(L, -1));
    }
    lua_pushstring(L, file);
    return 2;
}

/* io.open and io.lines, for reading fixtures only: no writing anywhere,
 * nothing under /proc, /dev or /sys (/proc/self/mem alone would undo every
 * other rule). */
static const char *readable_path(lua_State *L, int arg) {
    const char *path = luaL_checkstring(L, arg);
    char *real = realpath(path, NULL);
    if (real == NULL) return path; /* missing: the original reports it */
    int special = strncmp(real, "/proc", 5) == 0 || strncmp(real, "/dev", 4) == 0 || strncmp(real, "/sys", 4) == 0;
    free(real);
    if (special) luaL_error(L, "%s is not readable from scenarios (run with --allow-os to allow it)", path);
    return path;
}

static int read_only_open(lua_State *L) {
    readable_path(L, 1);
    const char *mode = luaL_optstring(L, 2, "r");
    if (strcmp(mode, "r") != 0 && strcmp(mode, "rb") != 0) {
        return luaL_error(L, "io.open in mode \"%s\" is not available in scenarios: files are read-only "
                          "(run with --allow-os to allow it)", mode);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* io.lines and io.input: a file name is checked, a file handle passes. */
static int read_only_lines(lua_State *L) {
    if (lua_type(L, 1) == LUA_TSTRING) readable_path(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* string.rep and table.move can loop in C for as long as they are told to,
 * where no hook runs: bound them. */
#define BIGGEST_LOOP ((lua_Integer)1 << 28)

static int bounded_rep(lua_State *L) {
    size_t length = 0, separator = 0;
    luaL_checklstring(L, 1, &length);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &separator);
    if (n > BIGGEST_LOOP || (n > 0 && (length + separator) > (size_t)(BIGGEST_LOOP / n))) {
        return luaL_error(L, "string.rep of %I copies of %I bytes is over the scenario limit of %I bytes",
                          n, (lua_Integer)(length + separator), BIGGEST_LOOP);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int bounded_move(lua_State *L) {
    lua_Integer first = luaL_checkinteger(L, 2), last = luaL_checkinteger(L, 3);
    if (last >= first && (last - first > BIGGEST_LOOP || first < -BIGGEST_LOOP || last > LUA_MAXINTEGER / 2)) {
        return luaL_error(L, "table.move of more than %I elements is over the scenario limit", BIGGEST_LOOP);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* setmetatable without __gc: Lua runs finalizers with hooks off, so a
 * finalizer that loops could not be stopped by any limit. */
static int no_finalizer_setmetatable(lua_State *L) {
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL) {
            return luaL_error(L, "__gc metamethods are not available in scenarios: no limit can stop a finalizer "
                              "(run with --allow-os to allow them)");
        }
        lua_pop(L, 1);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* Replaces table[field] (the table at the top of the stack) with `fn`,
 * which gets the original as its upvalue. */
static void wrap(lua_State *L, const char *field, lua_CFunction fn) {
    lua_getfield(L, -1, field);
    lua_pushcclosure(L, fn, 1);
    lua_setfield(L, -2, field);
}

static void sandbox(lua_State *L) {
    lua_getglobal(L, "os");
    refuse(L, "os.execute", "execute");
    refuse(L, "os.exit", "exit");
    refuse(L, "os.remove", "remove");
    refuse(L, "os.rename", "rename");
    refuse(L, "os.tmpname", "tmpname");
    lua_pop(L, 1);
    lua_getglobal(L, "io");
    refuse(L, "io.popen", "popen");
    refuse(L, "io.output", "output");
    refuse(L, "io.tmpfile", "tmpfile");
    wrap(L, "open", read_only_open);
    wrap(L, "lines", read_only_lines);
    wrap(L, "input", read_only_lines);
    lua_pop(L, 1);
    lua_getglobal(L, "string");
    wrap(L, "rep", bounded_rep);
    lua_pop(L, 1);
    lua_getglobal(L, "table");
    wrap(L, "move", bounded_move);
    lua_pop(L, 1);
    lua_pushglobaltable(L);
    wrap(L, "setmetatable", no_finalizer_setmetatable);
    lua_pop(L, 1);
    /* debug keeps what reports need. sethook would remove the limits;
     * getregistry and the upvalue functions reach the original load
     * (binary chunks) and the module's internals. */
    static const char *const debug_refused[] = {
        "sethook", "getregistry", "getupvalue", "setupvalue", "upvaluejoin",
        "setuservalue", "getuservalue", "setlocal", "setmetatable", "setcstacklimit", "debug",
    };
    lua_getglobal(L, "debug");
    for (size_t i = 0; i < sizeof debug_refused / sizeof debug_refused[0]; i++) {
        lua_pushfstring(L, "debug.%s", debug_refused[i]);
        lua_pushcclosure(L, refused, 1);
        lua_setfield(L, -2, debug_refused[i]);
    }
    lua_pop(L, 1);
    lua_getglobal(L, "package");
    refuse(L, "package.loadlib", "loadlib");
    lua_pushliteral(L, "");
    lua_setfield(L, -2, "cpath"); /* no C modules */
    lua_getfield(L, -1, "searchers");
    lua_pushcfunction(L, text_searcher);
    lua_rawseti(L, -2, 2);
    lua_pushnil(L); /* the C searchers go */
    lua_rawseti(L, -2, 4);
    lua_pushnil(L);
    lua_rawseti(L, -2, 3);
    lua_pop(L, 2);
    lua_getglobal(L, "load");
    lua_pushcclosure(L, text_load, 1);
    lua_setglobal(L, "load");
    lua_pushcfunction(L, text_loadfile);
    lua_setglobal(L, "loadfile");
    lua_pushcfunction(L, text_dofile);
    lua_setglobal(L, "dofile");
}

void sbr_prepare_state(lua_State *L, const sbr_config *config, sb_mediator *m) {
    luaL_openlibs(L);
    if (!config->allow_os) sandbox(L);
    /* The module, bound to this state's mediator: `require "switchboard"`
     * finds it in package.loaded (and never loads a second library). */
    sb_lua_open(L, m);
    if (!config->allow_os) {
        lua_pushliteral(L, "sb.load_plugin");
        lua_pushcclosure(L, refused, 1);
        lua_setfield(L, -2, "load_plugin");
    }
    luaL_Buffer path;
    luaL_buffinit(L, &path);
    for (size_t i = 0; i < config->target_dir_count; i++) {
        if (i > 0) luaL_addchar(&path, ';');
        luaL_addstring(&path, config->target_dirs[i]);
        luaL_addstring(&path, "/?.lua");
    }
    luaL_pushresult(&path);
    lua_setfield(L, -2, "path");
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "loaded");
    lua_pushvalue(L, -3);
    lua_setfield(L, -2, "switchboard");
    lua_pop(L, 2);
    lua_setglobal(L, "sb");
}
