/*
 * What a fork shares that a scenario must not: a copy of memory is private,
 * but open file descriptions, the process group and a generator's seed are
 * not. A scenario's process undoes that here, before its scenario runs, so
 * that it starts as the old way (re-running the top level in a fresh state)
 * started it:
 *
 *   - files the top level opened are reopened, at the position the top
 *     level left them: a shared description would move every later
 *     scenario's position too (one reads the file, the next finds it at
 *     its end);
 *   - every other descriptor the runner holds (the TAP stream, the trace
 *     file, another scenario's pipe) is closed: a plugin could write a
 *     forged report into it;
 *   - the process gets a session of its own: kill(0, ...) in a plugin no
 *     longer reaches the runner, and the parent can end the scenario and
 *     whatever it started as one group;
 *   - math.random gets a fresh seed (and math.randomseed() with no
 *     arguments draws one): the copied seed would give every scenario the
 *     same numbers. Unless the top level chose a seed: then each scenario
 *     draws the numbers it drew when it re-ran the top level for itself.
 */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/random.h>
#endif

#define RANDOMSEED_KEY "switchboard.runner.randomseed"

/* Where a scan gives up on a process without /proc: descriptors past it are
 * not looked at. */
#define SCAN_LIMIT 4096

/* ------------------------------------------------------- descriptors */

/* Calls `each` for every open descriptor of this process. */
static void each_descriptor(void (*each)(int fd, void *context), void *context) {
    DIR *d = opendir("/proc/self/fd");
    if (d != NULL) {
        int own = dirfd(d);
        /* Collected first: closing while reading the directory would
         * change it under readdir. */
        int *fds = NULL;
        size_t count = 0, capacity = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            char *end;
            long fd = strtol(e->d_name, &end, 10);
            if (e->d_name[0] == '.' || *end != '\0' || fd == own || fd < 0) continue;
            if (count == capacity) {
                size_t more = capacity > 0 ? capacity * 2 : 64;
                int *grown = realloc(fds, more * sizeof *fds);
                if (grown == NULL) break;
                fds = grown;
                capacity = more;
            }
            fds[count++] = (int)fd;
        }
        closedir(d);
        for (size_t i = 0; i < count; i++) each(fds[i], context);
        free(fds);
        return;
    }
    for (int fd = 0; fd < SCAN_LIMIT; fd++) {
        if (fcntl(fd, F_GETFD) >= 0) each(fd, context);
    }
}

static void add_fd(int fd, void *context) {
    sbr_descriptors *d = context;
    if (fd <= STDERR_FILENO || d->failed) return;
    if (d->count == d->capacity) {
        size_t more = d->capacity > 0 ? d->capacity * 2 : 16;
        sbr_descriptor *grown = realloc(d->items, more * sizeof *grown);
        if (grown == NULL) {
            d->failed = 1;
            return;
        }
        d->items = grown;
        d->capacity = more;
    }
    d->items[d->count++] = (sbr_descriptor){.fd = fd, .offset = -1};
}

void sbr_descriptors_snapshot(sbr_descriptors *d) {
    memset(d, 0, sizeof *d);
    each_descriptor(add_fd, d);
}

void sbr_descriptors_opened_since(sbr_descriptors *now, const sbr_descriptors *before) {
    size_t kept = 0;
    for (size_t i = 0; i < now->count; i++) {
        sbr_descriptor item = now->items[i];
        int known = 0;
        for (size_t j = 0; j < before->count && !known; j++) known = before->items[j].fd == item.fd;
        if (known) continue;
        struct stat st;
        if (fstat(item.fd, &st) == 0 && S_ISREG(st.st_mode)) {
            item.offset = lseek(item.fd, 0, SEEK_CUR);
            item.flags = fcntl(item.fd, F_GETFL);
        }
        now->items[kept++] = item;
    }
    now->count = kept;
}

void sbr_descriptors_free(sbr_descriptors *d) {
    free(d->items);
    memset(d, 0, sizeof *d);
}

/* A description of its own for a file the top level opened, at the
 * position the top level left it. Left shared when it cannot be reopened
 * (removed and not reachable, permissions changed). */
static void reopen(const sbr_descriptor *item) {
    if (item->offset < 0 || item->flags < 0) return;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", item->fd);
    int fresh = open(path, item->flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_NOCTTY));
    if (fresh < 0) return;
    int cloexec = fcntl(item->fd, F_GETFD);
    if (lseek(fresh, item->offset, SEEK_SET) == item->offset && dup2(fresh, item->fd) == item->fd) {
        if (cloexec >= 0) (void)fcntl(item->fd, F_SETFD, cloexec);
    }
    close(fresh);
}

typedef struct keep {
    const sbr_descriptors *opened;
    int channel;
    rlim_t limit; /* past it: not the program's (valgrind keeps its own there) */
} keep;

static void close_unless_kept(int fd, void *context) {
    const keep *k = context;
    if (fd <= STDERR_FILENO || fd == k->channel || (rlim_t)fd >= k->limit) return;
    for (size_t i = 0; i < k->opened->count; i++) {
        if (k->opened->items[i].fd == fd) return;
    }
    close(fd);
}

static void close_above_stderr(int fd, void *context) {
    const keep *k = context;
    if (fd > STDERR_FILENO && fd != k->channel && (rlim_t)fd < k->limit) close(fd);
}

void sbr_close_descriptors_except(int channel) {
    struct rlimit files;
    keep k = {.opened = NULL, .channel = channel, .limit = RLIM_INFINITY};
    if (getrlimit(RLIMIT_NOFILE, &files) == 0) k.limit = files.rlim_cur;
    each_descriptor(close_above_stderr, &k);
}

/* ------------------------------------------------------------ seeds */

/* 64 bits no other process of the run shares. */
static lua_Integer entropy(void) {
    uint64_t bits = 0;
#ifdef __linux__
    if (getrandom(&bits, sizeof bits, GRND_NONBLOCK) == (ssize_t)sizeof bits) return (lua_Integer)bits;
#endif
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    bits = (uint64_t)t.tv_nsec * 0x9E3779B97F4A7C15u ^ (uint64_t)t.tv_sec ^ ((uint64_t)getpid() << 32);
    return (lua_Integer)bits;
}

/* math.randomseed: with no arguments, a seed from entropy (Lua's own mixes
 * the time in seconds with addresses, which every forked copy shares). */
int sbr_seeded_by_script = 0;

static int fresh_randomseed(lua_State *L) {
    int given = lua_gettop(L);
    if (given > 0) sbr_seeded_by_script = 1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    if (given == 0) {
        lua_pushinteger(L, entropy());
        lua_pushinteger(L, entropy());
        given = 2;
    }
    lua_call(L, given, LUA_MULTRET);
    return lua_gettop(L);
}

void sbr_isolation_prepare_state(lua_State *L) {
    lua_getglobal(L, "math");
    if (lua_type(L, -1) == LUA_TTABLE && lua_getfield(L, -1, "randomseed") == LUA_TFUNCTION) {
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, RANDOMSEED_KEY);
        lua_pushcclosure(L, fresh_randomseed, 1);
        lua_setfield(L, -2, "randomseed");
        lua_pop(L, 1);
    } else {
        lua_pop(L, 2);
    }
}

static int protected_reseed(lua_State *L) {
    if (lua_getfield(L, LUA_REGISTRYINDEX, RANDOMSEED_KEY) != LUA_TFUNCTION) return 0;
    lua_pushinteger(L, entropy());
    lua_pushinteger(L, entropy());
    lua_call(L, 2, 0);
    return 0;
}

/* ------------------------------------------------ a scenario's process */

int sbr_in_scenario_process = 0;

void sbr_isolate_scenario_process(const sbr_descriptors *opened, int channel, lua_State *L) {
    sbr_in_scenario_process = 1;
    (void)setsid();
    for (size_t i = 0; i < opened->count; i++) reopen(&opened->items[i]);
    struct rlimit files;
    keep k = {.opened = opened, .channel = channel, .limit = RLIM_INFINITY};
    if (getrlimit(RLIMIT_NOFILE, &files) == 0) k.limit = files.rlim_cur;
    each_descriptor(close_unless_kept, &k);
    if (!sbr_seeded_by_script) { /* a seed the top level chose stays: each scenario draws as it did alone */
        lua_pushcfunction(L, protected_reseed);
        (void)lua_pcall(L, 0, 0, 0); /* best effort: without it, the copied seed */
        lua_settop(L, 0);
    }
}

/* os.exit: ends a scenario's own process (its parent reports how); in the
 * runner's own process it would end the whole run, so it is an error. */
static int guarded_exit(lua_State *L) {
    if (!sbr_in_scenario_process) {
        return luaL_error(L, "os.exit in the runner's own process (a script's top level, or a scenario that "
                             "cannot have a process of its own) would end the whole run");
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

void sbr_isolation_guard_exit(lua_State *L) {
    lua_getglobal(L, "os");
    if (lua_type(L, -1) == LUA_TTABLE && lua_getfield(L, -1, "exit") == LUA_TFUNCTION) {
        lua_pushcclosure(L, guarded_exit, 1);
        lua_setfield(L, -2, "exit");
        lua_pop(L, 1);
    } else {
        lua_pop(L, 2);
    }
}
