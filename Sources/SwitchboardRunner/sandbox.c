/*
 * The sandbox of a scenario state (unless --allow-os): what could reach the
 * system, corrupt memory or outlive the limits is refused or bounded.
 *
 * Rules the code below keeps:
 *   - no wrapper calls an original that can call back into Lua: a Lua
 *     function running under it could find the original on the stack
 *     (debug.getinfo(level, "f")) and call it unguarded;
 *   - every file is opened through sb__file_open (switchboard_file.h): a
 *     regular file on an ordinary file system (not procfs, sysfs, a device,
 *     a pipe), opened without blocking and checked by descriptor; Lua source
 *     is then read through that descriptor (switchboard_lua_source.h), and
 *     an error never quotes a file that is not text;
 *   - no finalizers and no access to the metatables of C objects: Lua runs
 *     finalizers with hooks off, so nothing could stop one that loops.
 */
/* realpath is XSI; fstatfs is Linux. */
#define _GNU_SOURCE

#include "internal.h"
#include "switchboard_lua_source.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The biggest result string.rep and table.move may make: they loop in C,
 * where no hook runs. */
#define BIGGEST_LOOP ((lua_Integer)1 << 22)


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

/* Refuses each of `fields` of the library table at the top of the stack,
 * naming it `library.field`. */
static void refuse_all(lua_State *L, const char *library, const char *const *fields, size_t count) {
    for (size_t i = 0; i < count; i++) {
        lua_pushfstring(L, "%s.%s", library, fields[i]);
        lua_pushcclosure(L, refused, 1);
        lua_setfield(L, -2, fields[i]);
    }
}

#define REFUSE_ALL(L, library, fields) refuse_all(L, library, fields, sizeof fields / sizeof fields[0])

/* Replaces table[field] with `fn`, which gets the original as upvalue 1. */
static void wrap(lua_State *L, const char *field, lua_CFunction fn) {
    lua_getfield(L, -1, field);
    lua_pushcclosure(L, fn, 1);
    lua_setfield(L, -2, field);
}

/* Calls the original (upvalue 1) with this call's arguments. Only for
 * originals that never call back into Lua. */
static int call_original(lua_State *L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* ------------------------------------------------------------ files */

/* The message of a file the sandbox refuses to read. */
static int refuse_file(lua_State *L, const char *path, const char *why) {
    return luaL_error(L, "%s is not a regular file that scenarios may read: %s (run with --allow-os to allow it)", path,
                      why);
}

/* Loads the Lua source file `path` for loadfile and dofile: a file the
 * sandbox refuses raises (as io.open does), one that does not open gives
 * loadfile's nil, message. */
static int load_source(lua_State *L, const char *path) {
    char why[128];
    const char *chunkname = lua_pushfstring(L, "@%s", path); /* before the open: may raise */
    int fd = sb__file_open(path, why, sizeof why);
    if (fd == SB_FILE_REFUSED) return refuse_file(L, path, why);
    if (fd < 0) {
        lua_pop(L, 1);
        lua_pushfstring(L, "cannot open %s: %s", path, why);
        return LUA_ERRFILE;
    }
    int status = sb__lua_load_fd(L, fd, path, chunkname);
    lua_remove(L, -2); /* the chunk name */
    return status;
}

/* io.open's own closing function for the streams read_only_open makes. */
static int close_stream(lua_State *L) {
    luaL_Stream *p = (luaL_Stream *)luaL_checkudata(L, 1, LUA_FILEHANDLE);
    int ok = fclose(p->f) == 0;
    return luaL_fileresult(L, ok, NULL);
}

/* Pushes a closed file handle (a luaL_Stream, as liolib makes its own),
 * which push_stream_on gives a FILE. */
static luaL_Stream *push_closed_stream(lua_State *L) {
    luaL_Stream *p = (luaL_Stream *)lua_newuserdatauv(L, sizeof(luaL_Stream), 0);
    p->f = NULL;
    p->closef = NULL; /* a closed file until it has a FILE */
    luaL_setmetatable(L, LUA_FILEHANDLE);
    return p;
}

/* Gives the handle `p` the checked descriptor `fd` (taken: closed on
 * failure); 0 with errno set when no FILE could be made. */
static int stream_on(luaL_Stream *p, int fd) {
    p->f = fdopen(fd, "r");
    if (p->f == NULL) {
        int error = errno;
        close(fd);
        errno = error;
        return 0;
    }
    p->closef = close_stream;
    return 1;
}

/* io.open(name [, "r" | "rb"]): the file handle is made here, on the
 * descriptor that was checked. */
static int read_only_open(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    const char *mode = luaL_optstring(L, 2, "r");
    luaL_Stream *p = push_closed_stream(L);
    char why[128];
    int fd = sb__file_open(path, why, sizeof why); /* read-only, non-blocking: checks only */
    if (fd == SB_FILE_REFUSED) return refuse_file(L, path, why);
    if (strcmp(mode, "r") != 0 && strcmp(mode, "rb") != 0) {
        if (fd >= 0) close(fd);
        return luaL_error(L, "io.open in mode \"%s\" is not available in scenarios: files are read-only "
                          "(run with --allow-os to allow it)", mode);
    }
    if (fd < 0 || !stream_on(p, fd)) return luaL_fileresult(L, 0, path);
    return 1;
}

/* The file handle of io.lines(name) and io.input(name), made as io.open
 * makes it: on the descriptor that was checked, never by the name again
 * (a name checked and then reopened can be swapped for a FIFO meanwhile).
 * Raises as liolib does when the file does not open. */
static void push_checked_stream(lua_State *L, const char *path) {
    luaL_Stream *p = push_closed_stream(L);
    char why[128];
    int fd = sb__file_open(path, why, sizeof why);
    if (fd == SB_FILE_REFUSED) refuse_file(L, path, why);
    if (fd < 0) luaL_error(L, "cannot open file '%s' (%s)", path, why);
    if (!stream_on(p, fd)) luaL_error(L, "cannot open file '%s' (%s)", path, strerror(errno));
}

/* The iterator of io.lines(name): the handle's own lines iterator (upvalue
 * 1, liolib's, which calls no Lua), closing the file (upvalue 2) at the end
 * as liolib's io.lines does. */
static int lines_step(lua_State *L) {
    lua_settop(L, 0);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_call(L, 0, LUA_MULTRET);
    if (lua_gettop(L) > 0 && lua_toboolean(L, 1)) return lua_gettop(L);
    luaL_Stream *p = lua_touserdata(L, lua_upvalueindex(2));
    if (p->closef != NULL) {
        lua_CFunction closef = p->closef;
        p->closef = NULL; /* as liolib's aux_close: closed once */
        lua_settop(L, 0);
        lua_pushvalue(L, lua_upvalueindex(2));
        (void)closef(L);
    }
    return 0;
}

/* io.lines(name, ...): the iterator, nil, nil and the file (to be closed),
 * as liolib returns them. io.lines() (the default input) is liolib's. */
static int read_only_lines(lua_State *L) {
    if (lua_isnoneornil(L, 1)) return call_original(L);
    const char *path = luaL_checkstring(L, 1);
    int formats = lua_gettop(L) - 1;
    luaL_checkstack(L, formats + 8, "too many arguments");
    push_checked_stream(L, path);
    int file = lua_gettop(L);
    luaL_getmetafield(L, file, "__index");
    lua_getfield(L, -1, "lines"); /* liolib's f_lines: checks the formats, calls no Lua */
    lua_pushvalue(L, file);
    for (int i = 0; i < formats; i++) lua_pushvalue(L, 2 + i);
    lua_call(L, formats + 1, 1);
    lua_pushvalue(L, file);
    lua_pushcclosure(L, lines_step, 2);
    lua_pushnil(L);
    lua_pushnil(L);
    lua_pushvalue(L, file);
    return 4;
}

/* io.input(name): the default input becomes a handle made on the checked
 * descriptor; io.input() and io.input(handle) are liolib's. */
static int read_only_input(lua_State *L) {
    if (lua_type(L, 1) == LUA_TSTRING) {
        push_checked_stream(L, lua_tostring(L, 1));
        lua_replace(L, 1);
    }
    return call_original(L); /* with a handle: sets it, calls no Lua */
}

/* package.searchpath(name, path [, sep [, rep]]), as loadlib's, with each
 * candidate opened through the one file check: the original opens them
 * with a blocking fopen (a FIFO waits for ever) and takes /proc files. A
 * refused candidate raises, as require does. */
static int checked_searchpath(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    const char *path = luaL_checkstring(L, 2);
    const char *sep = luaL_optstring(L, 3, ".");
    const char *rep = luaL_optstring(L, 4, LUA_DIRSEP);
    if (*sep != '\0' && strchr(name, *sep) != NULL) name = luaL_gsub(L, name, sep, rep);
    const char *names = luaL_gsub(L, path, "?", name); /* the candidates, separated by ';' */
    for (const char *at = names;;) {
        const char *end = strchr(at, ';');
        const char *candidate = lua_pushlstring(L, at, end != NULL ? (size_t)(end - at) : strlen(at));
        char why[128];
        int fd = sb__file_open(candidate, why, sizeof why);
        if (fd == SB_FILE_REFUSED) return refuse_file(L, candidate, why);
        if (fd >= 0) {
            close(fd);
            return 1;
        }
        lua_pop(L, 1);
        if (end == NULL) break;
        at = end + 1;
    }
    const char *tried = luaL_gsub(L, names, ";", "'\n\tno file '");
    luaL_pushfail(L);
    lua_pushfstring(L, "no file '%s'", tried);
    return 2;
}

/* ------------------------------------------------------------ loading */

/* load, in C: source text only (a precompiled chunk can do anything to
 * memory), and no original load on the stack while a reader function runs. */
#define READER_SLOT 5

static const char *reader(lua_State *L, void *ud, size_t *size) {
    (void)ud;
    luaL_checkstack(L, 2, "too many nested functions");
    lua_pushvalue(L, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        *size = 0;
        return NULL;
    }
    if (!lua_isstring(L, -1)) luaL_error(L, "reader function must return a string");
    lua_replace(L, READER_SLOT);
    return lua_tolstring(L, READER_SLOT, size);
}

/* After a load: sets the env (upvalue 1) if one was given at `env`, and
 * returns what load returns. */
static int loaded(lua_State *L, int status, int env) {
    if (status != LUA_OK) {
        luaL_pushfail(L);
        lua_insert(L, -2);
        return 2;
    }
    if (env != 0) {
        lua_pushvalue(L, env);
        if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
    }
    return 1;
}

static int text_load(lua_State *L) {
    int env = lua_gettop(L) >= 4 ? 4 : 0; /* an explicit nil env is not the same as none */
    size_t length = 0;
    const char *text = lua_tolstring(L, 1, &length);
    int status;
    if (text != NULL) {
        const char *name = luaL_optstring(L, 2, text);
        status = luaL_loadbufferx(L, text, length, name, "t");
    } else {
        const char *name = luaL_optstring(L, 2, "=(load)");
        luaL_checktype(L, 1, LUA_TFUNCTION);
        lua_settop(L, READER_SLOT);
        status = lua_load(L, reader, NULL, name, "t");
    }
    return loaded(L, status, env);
}

static int text_loadfile(lua_State *L) {
    const char *path = luaL_optstring(L, 1, NULL);
    if (path == NULL) return luaL_error(L, "loadfile needs a file name in scenarios (standard input is not read)");
    return loaded(L, load_source(L, path), lua_gettop(L) >= 3 ? 3 : 0);
}

static int text_dofile(lua_State *L) {
    const char *path = luaL_optstring(L, 1, NULL);
    if (path == NULL) return luaL_error(L, "dofile needs a file name in scenarios (standard input is not read)");
    lua_settop(L, 1);
    if (load_source(L, path) != LUA_OK) return lua_error(L);
    lua_call(L, 0, LUA_MULTRET);
    return lua_gettop(L) - 1;
}

/* package.searchers[2] for source files only. */
static int text_searcher(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "path");
    const char *path = lua_tostring(L, -1);
    if (path == NULL) return luaL_error(L, "package.path must be a string");
    const char *file = luaL_gsub(L, name, ".", LUA_DIRSEP);
    /* package.searchpath's walk, without calling back into Lua */
    for (const char *template = path; *template != '\0';) {
        const char *end = strchr(template, ';');
        size_t n = end != NULL ? (size_t)(end - template) : strlen(template);
        lua_pushlstring(L, template, n);
        const char *candidate = luaL_gsub(L, lua_tostring(L, -1), "?", file);
        const char *chunkname = lua_pushfstring(L, "@%s", candidate); /* before the open: may raise */
        char why[128];
        int fd = sb__file_open(candidate, why, sizeof why);
        if (fd == SB_FILE_REFUSED) {
            return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, candidate, why);
        }
        if (fd >= 0) {
            if (sb__lua_load_fd(L, fd, candidate, chunkname) != LUA_OK) {
                return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, candidate,
                                  lua_tostring(L, -1));
            }
            lua_pushstring(L, candidate);
            return 2;
        }
        lua_pop(L, 1);
        lua_pop(L, 2);
        template += n + (end != NULL ? 1 : 0);
    }
    lua_pushfstring(L, "\n\tno file for '%s' on package.path", name);
    return 1;
}

/* ------------------------------------------------------------ C loops */

static int bounded_rep(lua_State *L) {
    size_t length = 0, separator = 0;
    luaL_checklstring(L, 1, &length);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &separator);
    if (n > BIGGEST_LOOP || (n > 0 && (length + separator) > (size_t)(BIGGEST_LOOP / n))) {
        return luaL_error(L, "string.rep of %I copies of %I bytes is over the scenario limit of %I bytes",
                          n, (lua_Integer)(length + separator), BIGGEST_LOOP);
    }
    return call_original(L); /* string.rep calls no Lua */
}

/* table.move, in C: its element accesses may call metamethods (Lua code),
 * so it must not be the original running underneath. */
static int bounded_move(lua_State *L) {
    lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3), t = luaL_checkinteger(L, 4);
    int tt = !lua_isnoneornil(L, 5) ? 5 : 1;
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, tt, LUA_TTABLE);
    if (e >= f) {
        if (e - f >= BIGGEST_LOOP || f < -BIGGEST_LOOP || t > LUA_MAXINTEGER - BIGGEST_LOOP) {
            return luaL_error(L, "table.move of more than %I elements is over the scenario limit", BIGGEST_LOOP);
        }
        if (t > e || t <= f || (tt != 1 && !lua_compare(L, 1, tt, LUA_OPEQ))) {
            for (lua_Integer i = 0; i <= e - f; i++) {
                lua_geti(L, 1, f + i);
                lua_seti(L, tt, t + i);
            }
        } else {
            for (lua_Integer i = e - f; i >= 0; i--) {
                lua_geti(L, 1, f + i);
                lua_seti(L, tt, t + i);
            }
        }
    }
    lua_pushvalue(L, tt);
    return 1;
}

/* ------------------------------------------------------------ metatables */

/* setmetatable without __gc. */
static int no_finalizer_setmetatable(lua_State *L) {
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL) {
            return luaL_error(L, "__gc metamethods are not available in scenarios: no limit can stop a finalizer "
                              "(run with --allow-os to allow them)");
        }
        lua_pop(L, 1);
    }
    return call_original(L); /* reads __metatable raw: calls no Lua */
}

/* Every metatable in the registry (those of file handles and of the
 * module's objects) answers getmetatable with a placeholder, so scripts
 * cannot give C objects a finalizer or replace their methods. */
static void lock_registry_metatables(lua_State *L) {
    lua_pushnil(L);
    while (lua_next(L, LUA_REGISTRYINDEX) != 0) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TTABLE) {
            lua_pushliteral(L, "__name");
            if (lua_rawget(L, -2) != LUA_TNIL) {
                lua_pushliteral(L, "__metatable");
                lua_pushliteral(L, "locked by the scenario sandbox");
                lua_rawset(L, -4);
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
}

/* os.setlocale may only ask: the locale is the process's, every later
 * scenario and the reports would inherit it. */
static int query_setlocale(lua_State *L) {
    if (!lua_isnoneornil(L, 1)) {
        return luaL_error(L, "os.setlocale can only query in scenarios (run with --allow-os to change it)");
    }
    return call_original(L);
}

/* ------------------------------------------------------------ all */

void sbr_sandbox(lua_State *L) {
    static const char *const os_refused[] = {"execute", "exit", "remove", "rename", "tmpname"};
    static const char *const io_refused[] = {"popen", "output", "tmpfile"};
    /* debug keeps getinfo and traceback, for reports. The rest reaches
     * upvalues, locals, metatables and the registry (originals, internals)
     * or removes the limits (sethook). */
    static const char *const debug_refused[] = {
        "sethook", "gethook", "getregistry", "getupvalue", "setupvalue", "upvaluejoin", "upvalueid",
        "setuservalue", "getuservalue", "getlocal", "setlocal", "getmetatable", "setmetatable",
        "setcstacklimit", "debug",
    };
    lua_getglobal(L, "os");
    REFUSE_ALL(L, "os", os_refused);
    wrap(L, "setlocale", query_setlocale);
    lua_pop(L, 1);
    lua_getglobal(L, "io");
    REFUSE_ALL(L, "io", io_refused);
    wrap(L, "open", read_only_open);
    wrap(L, "lines", read_only_lines);
    wrap(L, "input", read_only_input);
    lua_pop(L, 1);
    lua_getglobal(L, "debug");
    REFUSE_ALL(L, "debug", debug_refused);
    lua_pop(L, 1);
    lua_getglobal(L, "string");
    wrap(L, "rep", bounded_rep);
    lua_pop(L, 1);
    lua_getglobal(L, "table");
    lua_pushcfunction(L, bounded_move);
    lua_setfield(L, -2, "move");
    lua_pop(L, 1);
    lua_pushglobaltable(L);
    wrap(L, "setmetatable", no_finalizer_setmetatable);
    lua_pushcfunction(L, text_load);
    lua_setfield(L, -2, "load");
    lua_pushcfunction(L, text_loadfile);
    lua_setfield(L, -2, "loadfile");
    lua_pushcfunction(L, text_dofile);
    lua_setfield(L, -2, "dofile");
    lua_pop(L, 1);
    lua_getglobal(L, "package");
    refuse(L, "package.loadlib", "loadlib");
    lua_pushliteral(L, "");
    lua_setfield(L, -2, "cpath"); /* no C modules */
    lua_pushcfunction(L, checked_searchpath);
    lua_setfield(L, -2, "searchpath");
    lua_getfield(L, -1, "searchers");
    lua_pushcfunction(L, text_searcher);
    lua_rawseti(L, -2, 2);
    lua_pushnil(L); /* the C searchers go */
    lua_rawseti(L, -2, 4);
    lua_pushnil(L);
    lua_rawseti(L, -2, 3);
    lua_pop(L, 2);
}

void sbr_sandbox_module(lua_State *L) {
    refuse(L, "sb.load_plugin", "load_plugin"); /* the module table is at the top */
    lock_registry_metatables(L);
}
