/*
 * Target_<Name>.lua files on sb.path, found on the first perform of <Name>
 * with no registration: the Lua counterpart of CTMediator's
 * NSClassFromString. The file returns a table of actions, which become the
 * target's registered actions (kept until sb.unregister, like a required
 * module). Files are looked for only on the thread that owns the state.
 */
#include "internal.h"
#include "switchboard_lua_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct discover_frame {
    sb_lua_ctx *ctx;
    const char *target;
    sb_status status;
    char error[512];
};

/* Only plain names become file names: no "../", no "/", nothing odd. */
static int plain_name(const char *name) {
    size_t n = 0;
    for (const char *p = name; *p != '\0'; p++, n++) {
        char c = *p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        if (!ok || n >= 200) return 0;
    }
    return n > 0;
}

/* The first file for `name` on `path` (package.path style, templates
 * separated by ';', '?' replaced by the name) that opens: its name and its
 * chunk name ("@file") pushed, and its descriptor (checked by sb__file_open)
 * returned. -1 with nothing pushed when no file opens; SB_FILE_REFUSED with
 * the two names pushed
 * and the reason in `why` when the first that opens is refused (a FIFO, a
 * directory, a file under /proc): discovery stops there rather than read it
 * or silently take a later one. */
static int search(lua_State *L, const char *name, const char *path, char *why, size_t size) {
    const char *template = path;
    while (*template != '\0') {
        const char *end = strchr(template, ';');
        size_t length = end ? (size_t)(end - template) : strlen(template);
        if (length > 0) {
            lua_pushlstring(L, template, length);
            const char *file = luaL_gsub(L, lua_tostring(L, -1), "?", name);
            lua_remove(L, -2);
            lua_pushfstring(L, "@%s", file); /* before the open: pushing may raise */
            int fd = sb__file_open(file, why, size);
            if (fd >= 0 || fd == SB_FILE_REFUSED) return fd;
            lua_pop(L, 2);
        }
        template += length + (end ? 1 : 0);
    }
    return -1;
}

static int protected_discover(lua_State *L) {
    struct discover_frame *f = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, f->ctx->module_ref);
    lua_getfield(L, -1, "path");
    if (lua_type(L, -1) != LUA_TSTRING) {
        f->status = SB_EINVAL;
        snprintf(f->error, sizeof f->error, "sb.path must be a string, not a %s", luaL_typename(L, -1));
        return 0;
    }
    const char *name = lua_pushfstring(L, "Target_%s", f->target);
    char why[128];
    int fd = search(L, name, lua_tostring(L, -2), why, sizeof why);
    if (fd == -1) {
        f->status = SB_ENOTARGET;
        return 0;
    }
    const char *file = lua_tostring(L, -2);
    if (fd == SB_FILE_REFUSED) {
        f->status = SB_EACTION;
        snprintf(f->error, sizeof f->error, "cannot load %s: %s", file, why);
        return 0;
    }
    if (sb__lua_load_fd(L, fd, file, lua_tostring(L, -1)) != LUA_OK) {
        f->status = SB_EACTION;
        snprintf(f->error, sizeof f->error, "%s", lua_tostring(L, -1));
        return 0;
    }
    lua_call(L, 0, 1);
    if (!lua_istable(L, -1)) {
        f->status = SB_EACTION;
        snprintf(f->error, sizeof f->error, "%s returned a %s, not a table of actions", file, luaL_typename(L, -1));
        return 0;
    }
    char error[256];
    if (!sb_lua_register_table(L, f->ctx, f->target, lua_gettop(L), error, sizeof error)) {
        f->status = SB_EACTION;
        snprintf(f->error, sizeof f->error, "%s: %s", file, error);
        return 0;
    }
    /* For the catalogue. A C buffer: nothing here may raise now that the
     * actions are registered. A path too long for it is cut short. */
    char origin[1024];
    snprintf(origin, sizeof origin, "Lua file %s", file);
    (void)sb_set_target_origin(f->ctx->m, f->target, origin);
    f->status = SB_OK;
    return 0;
}

sb_status sb_lua_discover(void *userdata, sb_mediator *m, const char *target) {
    sb_lua_ctx *ctx = userdata;
    (void)m;
    if (!sb_lua_on_owner(ctx) || ctx->closed || !plain_name(target)) return SB_ENOTARGET;
    lua_State *L = sb_lua_running(ctx);
    if (!lua_checkstack(L, 8)) return SB_ENOTARGET;
    struct discover_frame f;
    f.ctx = ctx;
    f.target = target;
    f.status = SB_ENOTARGET;
    f.error[0] = '\0';
    sb_status raised = sb_lua_protected(ctx, L, protected_discover, &f);
    if (raised != SB_OK) return raised;
    if (f.status != SB_OK && f.status != SB_ENOTARGET) sb_set_error("%s", f.error);
    return f.status;
}

/* Registers the functions of the table at `idx` as actions of `name`,
 * after checking all of them. 1 on success; 0 with a message in `error`. */
int sb_lua_register_table(lua_State *L, sb_lua_ctx *ctx, const char *name, int idx, char *error, size_t size) {
    idx = lua_absindex(L, idx);
    int count = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        size_t length = 0;
        const char *action = lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &length) : NULL;
        if (action == NULL || length == 0 || strlen(action) != length) {
            snprintf(error, size, "action names must be non-empty strings without NUL bytes");
            lua_pop(L, 2);
            return 0;
        }
        if (lua_type(L, -1) == LUA_TTABLE) {
            /* {fn =, params =, result =, exposure =}: an action with a contract. */
            char *contract = sb_lua_contract(L, ctx, action, -1, error, size);
            int has_fn = lua_getfield(L, -1, "fn") == LUA_TFUNCTION;
            lua_pop(L, 1);
            free(contract);
            if (contract == NULL || !has_fn) {
                if (contract != NULL) snprintf(error, size, "action \"%s\": its table has no function under fn", action);
                lua_pop(L, 2);
                return 0;
            }
        } else if (lua_type(L, -1) != LUA_TFUNCTION) {
            snprintf(error, size, "action \"%s\" is a %s, not a function or a table", action, luaL_typename(L, -1));
            lua_pop(L, 2);
            return 0;
        }
        count++;
        lua_pop(L, 1);
    }
    if (count == 0) {
        snprintf(error, size, "the actions table is empty");
        return 0;
    }
    /* Charged to the host's memory budget (see charge.c) before the library
     * copies anything. */
    long long cost = SB_LUA_REGISTRATION_COST + SB_LUA_NAME_COPIES * (long long)strlen(name);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        size_t length = 0;
        (void)lua_tolstring(L, -2, &length); /* checked above: a string */
        cost += SB_LUA_ACTION_COST + 2 * (long long)length;
        lua_pop(L, 1);
    }
    if (!sb_lua_charge_name(L, SB_LUA_CHARGE_TARGET, name, cost)) {
        snprintf(error, size, "not enough memory: the Lua state's memory budget is spent");
        return 0;
    }
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        const char *action = lua_tostring(L, -2);
        char *contract = NULL;
        int with_contract = lua_type(L, -1) == LUA_TTABLE;
        if (with_contract) {
            contract = sb_lua_contract(L, ctx, action, -1, error, size); /* checked above: NULL only on ENOMEM */
            lua_getfield(L, -1, "fn");
            lua_replace(L, -2);
        }
        sb_lua_fn *fn = with_contract && contract == NULL ? NULL : sb_lua_fn_new(ctx, L, -1);
        /* Remembered before it is registered, so closing the state removes
         * even a half-done registration; a registration that fails lets go
         * of fn, and of its record with it. */
        if (fn != NULL && !sb_lua_remember(ctx, SB_LUA_ACTION, name, action, fn)) {
            sb_lua_fn_free(fn);
            fn = NULL;
        }
        int have_fn = fn != NULL;
        sb_status status = !have_fn ? SB_ENOMEM
                                    : sb_register_action_contract(ctx->m, name, action, contract, sb_lua_fn_call,
                                                                  fn, sb_lua_fn_free);
        free(contract);
        if (status != SB_OK) {
            snprintf(error, size, "registering %s.%s: %s", name, action, have_fn ? sb_last_error() : "out of memory");
            lua_pop(L, 2);
            return 0;
        }
        lua_pop(L, 1);
    }
    return 1;
}
