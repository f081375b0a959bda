/*
 * What every runner state gets: the standard libraries, the sandbox, the
 * switchboard module bound to the state's own mediator, and sb.path.
 */
#include "internal.h"

#include <fcntl.h>
#include <stdint.h>
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

void sbr_visible(const char *text, char *out, size_t size) {
    if (size == 0) return;
    const unsigned char *s = (const unsigned char *)(text != NULL ? text : "");
    size_t used = 0;
    for (size_t i = 0; s[i] != '\0';) {
        char unit[16];
        size_t in = 1;
        if ((s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7F) {
            snprintf(unit, sizeof unit, "\\x%02x", s[i]);
        } else if (s[i] == 0xC2 && s[i + 1] >= 0x80 && s[i + 1] <= 0x9F) {
            snprintf(unit, sizeof unit, "\\u{%x}", s[i + 1]);
            in = 2;
        } else {
            /* a whole UTF-8 sequence at once, so that a cut falls between characters */
            while (s[i + in] != '\0' && (s[i + in] & 0xC0) == 0x80 && in < 4) in++;
            memcpy(unit, s + i, in);
            unit[in] = '\0';
        }
        size_t n = strlen(unit);
        if (used + n + 1 > size) break;
        memcpy(out + used, unit, n);
        used += n;
        i += in;
    }
    out[used] = '\0';
}

/* The length of the UTF-8 sequence that starts `s` (at most `n` bytes) if
 * it is one: shortest form, no surrogate, at most U+10FFFF; else 0. */
static size_t utf8_sequence(const unsigned char *s, size_t n) {
    unsigned char c = s[0], low = 0x80, high = 0xBF;
    size_t length;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        length = 3;
        if (c == 0xE0) low = 0xA0;  /* overlong */
        if (c == 0xED) high = 0x9F; /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        length = 4;
        if (c == 0xF0) low = 0x90;  /* overlong */
        if (c == 0xF4) high = 0x8F; /* past U+10FFFF */
    } else {
        return 0;
    }
    if (n < length || s[1] < low || s[1] > high) return 0;
    for (size_t i = 2; i < length; i++) {
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    }
    return length;
}

/* What one unit of `text` at `at` becomes in a report: a UTF-8 sequence
 * stays (*kept bytes of input, *size bytes out), NUL is \0, a byte that is
 * not UTF-8 is \xHH. */
static void report_unit(const unsigned char *text, size_t at, size_t length, size_t *kept, size_t *size) {
    size_t sequence = text[at] == '\0' ? 0 : utf8_sequence(text + at, length - at);
    *kept = sequence > 0 ? sequence : 1;
    *size = sequence > 0 ? sequence : text[at] == '\0' ? 2 : 4;
}

char *sbr_copy_text(lua_State *L, int idx) {
    size_t length = 0;
    const unsigned char *text = (const unsigned char *)lua_tolstring(L, idx, &length);
    if (text == NULL) return NULL;
    /* What is kept: whole units up to the limit (report_unit). A report's
     * text is C and Swift strings: NUL cannot be in them, and bytes that
     * are not UTF-8 would be shown as U+FFFD, so that "\xff" and "\xfe"
     * would look the same. */
    size_t kept = 0, size = 0;
    while (kept < length) {
        size_t in, out;
        report_unit(text, kept, length, &in, &out);
        if (size + out + 1 > SBR_TEXT_LIMIT) break;
        kept += in;
        size += out;
    }
    char tail[64] = "";
    if (kept < length) snprintf(tail, sizeof tail, "\n... (%zu more bytes)", length - kept);
    size_t tail_length = strlen(tail);
    char *copy = malloc(size + tail_length + 1), *at = copy;
    if (copy == NULL) return NULL;
    for (size_t i = 0; i < kept;) {
        size_t in, out;
        report_unit(text, i, length, &in, &out);
        if (text[i] == '\0') {
            memcpy(at, "\\0", 2);
        } else if (out == 4 && in == 1) {
            snprintf(at, 5, "\\x%02x", text[i]);
        } else {
            memcpy(at, text + i, in);
        }
        at += out;
        i += in;
    }
    memcpy(at, tail, tail_length + 1);
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

void sbr_detach_stdin(void) {
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0) return;
    dup2(null, STDIN_FILENO);
    close(null);
}

sb_mediator *sbr_new_mediator(const sbr_config *config, char **error) {
    sb_mediator *m = sb_mediator_new();
    if (m == NULL) {
        *error = sbr_strdup("out of memory making a mediator");
        return NULL;
    }
    for (size_t i = 0; i < config->plugin_count; i++) {
        if (sb_plugin_load(m, config->plugins[i]) != SB_OK) {
            const char *message = sb_error_message();
            size_t n = strlen(message) + 1;
            *error = malloc(n);
            if (*error != NULL) memcpy(*error, message, n);
            sb_mediator_free(m);
            return NULL;
        }
    }
    return m;
}

void sbr_push_file_methods(lua_State *L) {
    if (luaL_getmetatable(L, LUA_FILEHANDLE) == LUA_TTABLE) {
        lua_pushliteral(L, "__index");
        lua_rawget(L, -2); /* raw: the sandbox has locked the metatable */
        lua_remove(L, -2);
        if (lua_type(L, -1) == LUA_TTABLE) return;
    }
    lua_pop(L, 1);
    lua_pushnil(L);
}

void sbr_prepare_state(lua_State *L, const sbr_config *config, sb_mediator *m) {
    luaL_openlibs(L);
    sbr_guard_coroutines(L); /* every coroutine counts against the budget */
    if (!config->allow_os) sbr_sandbox(L);
    sbr_isolation_prepare_state(L);
    if (config->allow_os) sbr_isolation_guard_exit(L); /* the sandbox refuses it already */
    /* The module, bound to this state's mediator: `require "switchboard"`
     * finds it in package.loaded (and never loads a second library). What
     * the library keeps for the state counts against --max-memory. */
    void *guard = NULL;
    lua_getallocf(L, &guard);
    sb_lua_set_charge(L, sbr_guard_charge, guard);
    sb_lua_open(L, m);
    if (!config->allow_os) sbr_sandbox_module(L);
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
