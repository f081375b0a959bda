/*
 * Target_<Name>.lua files on sb.path, found on the first perform of <Name>
 * with no registration: the Lua counterpart of CTMediator's
 * NSClassFromString. The file returns a table of actions, which become the
 * target's registered actions (kept until sb.unregister, like a required
 * module), or a constructor of such tables, which becomes a target class
 * with instances (see register_constructor). Files are looked for only on
 * the thread that owns the state.
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

/* ------------------------------------------------- files with instances */

/* A file that returns a constructor is a target class (sb_class_register):
 * each instance is the table one call of it returns, so the mediator makes,
 * caches and releases instances as it does a plugin's or a Swift target's.
 * The constructor runs once when the file loads, to learn the action names
 * and contracts; that instance is dropped. The class's userdata is the
 * constructor (an sb_lua_fn), remembered like a registered action so that
 * closing the state removes the class if it is still this one. */

/* The file the constructor (pushed, then popped) was loaded from: its chunk
 * name without the '@', alive as long as the function. Never raises. */
static const char *file_of(lua_State *L, sb_lua_fn *constructor) {
    lua_Debug ar;
    lua_rawgeti(L, LUA_REGISTRYINDEX, constructor->ref);
    if (!lua_getinfo(L, ">S", &ar) || ar.source == NULL) return "a Lua file";
    return ar.source[0] == '@' ? ar.source + 1 : ar.source;
}

struct create_frame {
    sb_lua_fn *constructor;
    const char *file;
    sb_lua_fn *instance;
    sb_status status;
    char error[512];
};

static int protected_create(lua_State *L) {
    struct create_frame *c = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->constructor->ref);
    lua_call(L, 0, 1);
    if (!lua_istable(L, -1)) {
        c->status = SB_EACTION;
        snprintf(c->error, sizeof c->error, "the constructor of %s returned a %s, not a table of actions", c->file,
                 luaL_typename(L, -1));
        return 0;
    }
    c->instance = sb_lua_fn_new(c->constructor->ctx, L, -1); /* NULL: out of memory */
    c->status = c->instance != NULL ? SB_OK : SB_ENOMEM;
    if (c->instance == NULL) snprintf(c->error, sizeof c->error, "out of memory making an instance of %s", c->file);
    return 0;
}

static sb_status class_create(void *userdata, void **state) {
    sb_lua_fn *constructor = userdata;
    sb_lua_ctx *ctx = constructor->ctx;
    if (!sb_lua_on_owner(ctx)) {
        sb_error_set("a Target_<Name>.lua file makes its instances only on the thread that owns its Lua state");
        return SB_EREJECTED;
    }
    if (ctx->closed) {
        sb_error_set("the Lua state that loaded this Target_<Name>.lua file is closed");
        return SB_EACTION;
    }
    lua_State *L = sb_lua_running(ctx);
    if (!lua_checkstack(L, 8)) {
        sb_error_set("Lua stack overflow making a target instance");
        return SB_EACTION;
    }
    struct create_frame c;
    c.constructor = constructor;
    c.file = file_of(L, constructor);
    c.instance = NULL;
    c.status = SB_EACTION;
    c.error[0] = '\0';
    sb_status raised = sb_lua_protected(ctx, L, protected_create, &c);
    if (raised != SB_OK) {
        sb_error_set("the constructor of %s raised an error: %s", c.file, sb_error_message());
        return raised;
    }
    if (c.status != SB_OK) {
        sb_error_set("%s", c.error);
        return c.status;
    }
    *state = c.instance;
    return SB_OK;
}

static sb_status class_call(void *userdata, void *state, const char *action, const sb_value *args, sb_value **out) {
    (void)userdata;
    return sb_lua_call_action(state, action, args, out);
}

static void class_destroy(void *userdata, void *state) {
    (void)userdata;
    if (state != NULL) sb_lua_fn_free(state);
}

static int check_and_charge(lua_State *L, sb_lua_ctx *ctx, const char *name, int idx, char *error, size_t size);

/* The constructor at the top of the stack, loaded from `file`: runs it once
 * for its action names and contracts and registers the class. */
static void register_constructor(lua_State *L, struct discover_frame *f, const char *file) {
    int constructor = lua_gettop(L);
    lua_pushvalue(L, constructor);
    if (lua_pcall(L, 0, 1, 0) != LUA_OK) {
        const char *message = lua_tostring(L, -1);
        f->status = SB_EACTION;
        snprintf(f->error, sizeof f->error, "the constructor of %s raised an error: %s", file,
                 message != NULL ? message : "(not a string)");
        return;
    }
    if (!lua_istable(L, -1)) {
        f->status = SB_EACTION;
        snprintf(f->error, sizeof f->error, "the constructor of %s returned a %s, not a table of actions", file,
                 luaL_typename(L, -1));
        return;
    }
    int probe = lua_gettop(L);
    char error[256];
    int count = check_and_charge(L, f->ctx, f->target, probe, error, sizeof error);
    if (count == 0) {
        f->status = SB_EACTION;
        snprintf(f->error, sizeof f->error, "%s: the constructor's table: %s", file, error);
        return;
    }
    /* Lua memory for the lists (collected even if something below raises),
     * and the constructor's reference, before any C allocation. */
    const char **names = lua_newuserdatauv(L, 2 * ((size_t)count + 1) * sizeof *names, 0);
    char **contracts = (char **)(names + count + 1);
    sb_lua_fn *fn = sb_lua_fn_new(f->ctx, L, constructor);
    /* Remembered before it is registered (see sb_lua_register_table). */
    if (fn != NULL && !sb_lua_remember(f->ctx, SB_LUA_CLASS, f->target, "", fn)) {
        sb_lua_fn_free(fn);
        fn = NULL;
    }
    if (fn == NULL) {
        f->status = SB_ENOMEM;
        snprintf(f->error, sizeof f->error, "out of memory loading %s", file);
        return;
    }
    int i = 0, failed = 0;
    lua_pushnil(L);
    while (lua_next(L, probe)) {
        names[i] = lua_tostring(L, -2); /* checked: a string, kept alive by the probe table */
        contracts[i] = NULL;
        if (lua_type(L, -1) == LUA_TTABLE) {
            contracts[i] = sb_lua_contract(L, f->ctx, names[i], lua_gettop(L), error, sizeof error);
            failed |= contracts[i] == NULL;
        }
        i++;
        lua_pop(L, 1);
    }
    names[i] = NULL;
    contracts[i] = NULL;
    char origin[1024];
    snprintf(origin, sizeof origin, "Lua file %s", file);
    sb_class_def def = SB_CLASS_DEF_INIT;
    def.actions = names;
    def.contracts = (const char *const *)contracts;
    def.create = class_create;
    def.call = class_call;
    def.destroy = class_destroy;
    def.origin = origin;
    sb_status status = failed ? SB_ENOMEM : sb_class_register(f->ctx->m, f->target, &def, fn, sb_lua_fn_free);
    if (failed) sb_lua_fn_free(fn);
    for (int j = 0; j < i; j++) free(contracts[j]);
    f->status = status == SB_OK ? SB_OK : status == SB_ENOMEM ? SB_ENOMEM : SB_EACTION;
    if (status != SB_OK) {
        snprintf(f->error, sizeof f->error, "%s: %s", file, failed ? "out of memory" : sb_error_message());
    }
}

static int protected_discover(lua_State *L) {
    struct discover_frame *f = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, f->ctx->module_ref);
    lua_getfield(L, -1, "path");
    if (lua_type(L, -1) != LUA_TSTRING) {
        f->status = SB_ETYPE; /* a value of the wrong kind, not a malformed one */
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
    if (lua_isfunction(L, -1)) {
        register_constructor(L, f, file);
        return 0;
    }
    if (!lua_istable(L, -1)) {
        f->status = SB_EACTION;
        snprintf(f->error, sizeof f->error, "%s returned a %s, not a table of actions or a constructor", file,
                 luaL_typename(L, -1));
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
    (void)sb_target_set_origin(f->ctx->m, f->target, origin);
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
    if (f.status != SB_OK && f.status != SB_ENOTARGET) sb_error_set("%s", f.error);
    return f.status;
}

/* Checks the actions table at `idx` (a function or an {fn =, ...} spec under
 * each non-empty string name) and charges what registering it costs to the
 * host's budget. Its number of actions; 0 with a message in `error`. */
static int check_and_charge(lua_State *L, sb_lua_ctx *ctx, const char *name, int idx, char *error, size_t size) {
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
    return count;
}

/* Registers the functions of the table at `idx` as actions of `name`,
 * after checking all of them. 1 on success; 0 with a message in `error`. */
int sb_lua_register_table(lua_State *L, sb_lua_ctx *ctx, const char *name, int idx, char *error, size_t size) {
    idx = lua_absindex(L, idx);
    if (check_and_charge(L, ctx, name, idx, error, size) == 0) return 0;
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
                                    : sb_action_register_contract(ctx->m, name, action, contract, sb_lua_action_call,
                                                                  fn, sb_lua_fn_free);
        free(contract);
        if (status != SB_OK) {
            snprintf(error, size, "registering %s.%s: %s", name, action, have_fn ? sb_error_message() : "out of memory");
            lua_pop(L, 2);
            return 0;
        }
        lua_pop(L, 1);
    }
    return 1;
}
