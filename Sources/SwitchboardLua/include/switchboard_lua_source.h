/*
 * Private: never installed. How the Lua module (Target_<Name>.lua files on
 * sb.path) and the runner (scripts, target directories, require, loadfile,
 * dofile) load a Lua source file: through sb__file_open's check (a regular
 * file on an ordinary file system, opened without blocking, read by its
 * descriptor), as source text only (mode "t").
 *
 * An error never quotes the content of a file that is not text: when a file
 * that holds a NUL byte or a control character other than tab, newline,
 * vertical tab, form feed, carriage return and escape does not parse, the
 * message names the file and says it is not Lua source, instead of Lua's
 * syntax error (which quotes the token it stopped at). A file that is text
 * gets Lua's own message.
 *
 * static inline: the module and the runner are built apart (the module also
 * as lua5.4's switchboard.so), and share this one copy of the code.
 */
#ifndef SWITCHBOARD_LUA_SOURCE_H
#define SWITCHBOARD_LUA_SOURCE_H

#include <lauxlib.h>
#include <lua.h>

#include "switchboard_file.h"

typedef struct sb__lua_source {
    int fd;
    int started;  /* the first block was read (a BOM skipped) */
    int skipping; /* in a first line that starts with '#' */
    int not_text; /* a byte no Lua source holds was read */
    int failed;   /* read() failed */
    char buffer[4096];
} sb__lua_source;

static inline const char *sb__lua_source_read(lua_State *L, void *ud, size_t *size) {
    sb__lua_source *s = (sb__lua_source *)ud;
    (void)L;
    ssize_t n;
    do {
        n = read(s->fd, s->buffer, sizeof s->buffer);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
        if (n < 0) s->failed = 1;
        *size = 0;
        return NULL;
    }
    size_t start = 0, length = (size_t)n;
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)s->buffer[i];
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' && c != 0x1b) s->not_text = 1;
    }
    if (!s->started) {
        /* As luaL_loadfile: a UTF-8 BOM and a first line starting with '#'
         * (a #! line) are skipped, the line's newline kept for the numbering. */
        s->started = 1;
        if (length >= 3 && memcmp(s->buffer, "\xEF\xBB\xBF", 3) == 0) start = 3;
        s->skipping = start < length && s->buffer[start] == '#';
    }
    if (s->skipping) {
        while (start < length && s->buffer[start] != '\n') start++;
        if (start == length) { /* the whole block is in the skipped line */
            s->buffer[0] = ' ';
            *size = 1;
            return s->buffer;
        }
        s->skipping = 0;
    }
    *size = length - start;
    return s->buffer + start;
}

/* Loads the checked file open on `fd` (closed here, whatever happens) as a
 * chunk named `chunkname` ("@path"); `path` names it in messages. Returns
 * lua_load's status with the chunk or a message pushed. */
static inline int sb__lua_load_fd(lua_State *L, int fd, const char *path, const char *chunkname) {
    sb__lua_source s;
    s.fd = fd;
    s.started = 0;
    s.skipping = 0;
    s.not_text = 0;
    s.failed = 0;
    int status = lua_load(L, sb__lua_source_read, &s, chunkname, "t");
    int error = errno;
    close(fd);
    if (s.failed) {
        lua_pop(L, 1); /* the chunk or lua_load's message */
        lua_pushfstring(L, "cannot read %s: %s", path, strerror(error));
        return LUA_ERRFILE;
    }
    if (status == LUA_ERRSYNTAX && s.not_text) {
        lua_pop(L, 1);
        lua_pushfstring(L, "%s: not Lua source (the file is not text)", path);
    }
    return status;
}

/* Opens `path` through sb__file_open and loads it as sb__lua_load_fd does.
 * LUA_ERRFILE with "cannot open <path>: <why>" when it does not open or is
 * refused. */
static inline int sb__lua_load_source(lua_State *L, const char *path) {
    char why[128];
    const char *chunkname = lua_pushfstring(L, "@%s", path);
    int fd = sb__file_open(path, why, sizeof why);
    if (fd < 0) {
        lua_pop(L, 1);
        lua_pushfstring(L, "cannot open %s: %s", path, why);
        return LUA_ERRFILE;
    }
    int status = sb__lua_load_fd(L, fd, path, chunkname);
    lua_remove(L, -2); /* the chunk name */
    return status;
}

#endif
