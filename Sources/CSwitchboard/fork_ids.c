/* After fork(), the child's thread forgets the thread id it carries.
 *
 * Swift's runtime on Linux keeps each thread's kernel id in thread-local
 * variables, and locks priority-inheritance futexes with it: its once-locks
 * (swift::threading_impl::linux::ulock_get_tid) and Synchronization.Mutex
 * (_swift_stdlib_gettid, one copy in each module that inlines it). fork()
 * copies the forking thread's variables into the child, where they hold
 * the parent's id. For the kernel, a lock the child's thread takes with it
 * is then owned by a thread of another process; when another thread of the
 * child comes to wait for it, FUTEX_LOCK_PI and FUTEX_UNLOCK_PI both fail
 * with EPERM: a once is retried by both threads for ever, a Mutex traps.
 * The scenario runner's children hung so (1 run in 7 of a scenario whose
 * plugin thread and Lua answered together, meeting in the runtime's type
 * metadata cache); so can any host's child that has two threads.
 *
 * The variables are local symbols, which no program can name; their
 * offsets in each module's thread-local block are in the module's symbol
 * table, or, in an installed (stripped) library, in its debug file
 * (module_symbols.c). Before a fork, the forking thread's copies are found;
 * in the child they are set to 0, which makes the runtime ask the kernel
 * again. A module's table is read at the first fork that meets it and
 * remembered while the same module (by build id) is loaded in its place. A
 * module whose symbols are nowhere keeps the hazard (switchboard.h, "fork").
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "module_symbols.h"

#if defined(__linux__) && defined(__LP64__)

static const char *const cached_id_names[] = {
    "_ZZN5swift14threading_impl5linux13ulock_get_tidEvE3tid", /* the runtime's once-locks */
    "_swift_stdlib_gettid.tid",                               /* Synchronization.Mutex */
    NULL,
};

enum { MAX_BUILD_ID = 64 };

/* What a module's symbol table says: where its cached ids are. A module is
 * known by its place (TLS module id, load address, program headers) and,
 * as another may take that place once it is unloaded, by its build id; one
 * without a build id is read again after any module was unloaded. */
typedef struct {
    size_t modid;
    ElfW(Addr) base;
    const ElfW(Phdr) *phdr;
    unsigned char build_id[MAX_BUILD_ID];
    size_t build_id_length; /* 0: none */
    unsigned long long unloads; /* dl_iterate_phdr's count when it was read */
    size_t count;
    size_t *offsets;
} module_ids;

/* Held from before a fork to after it (the usual pthread_atfork pattern):
 * two threads forking at once take turns here. No thread-local storage:
 * a library loaded with dlopen has little of it (glibc's static TLS). */
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;
/* Every place of a module with thread-local storage seen (most have no
 * ids: a slot each all the same, so that none is read twice). */
static module_ids *modules;
static size_t module_count, module_room;

/* The forking thread's copies, found before the fork, cleared in the child. */
static int32_t **found;
static size_t found_count, found_room;

/* Whether `m` still describes the module loaded at its place. */
static int still_loaded(const module_ids *m, const struct dl_phdr_info *info) {
    size_t length = 0;
    const unsigned char *id = sb__module_build_id(info, &length);
    if (id == NULL || length > MAX_BUILD_ID) return m->build_id_length == 0 && m->unloads == info->dlpi_subs;
    return m->build_id_length == length && memcmp(m->build_id, id, length) == 0;
}

static void read_module(module_ids *m, const struct dl_phdr_info *info) {
    free(m->offsets);
    memset(m, 0, sizeof *m);
    m->modid = info->dlpi_tls_modid;
    m->base = info->dlpi_addr;
    m->phdr = info->dlpi_phdr;
    m->unloads = info->dlpi_subs;
    size_t length = 0;
    const unsigned char *id = sb__module_build_id(info, &length);
    if (id != NULL && length <= MAX_BUILD_ID) {
        memcpy(m->build_id, id, length);
        m->build_id_length = length;
    }
    (void)sb__module_tls_symbols(info, cached_id_names, &m->offsets, &m->count);
}

static const module_ids *remembered(const struct dl_phdr_info *info) {
    for (size_t i = 0; i < module_count; i++) {
        module_ids *m = &modules[i];
        if (m->modid != info->dlpi_tls_modid || m->base != info->dlpi_addr || m->phdr != info->dlpi_phdr) continue;
        if (!still_loaded(m, info)) read_module(m, info);
        return m;
    }
    if (module_count == module_room) {
        size_t room = module_room != 0 ? module_room * 2 : 16;
        module_ids *grown = realloc(modules, room * sizeof *grown);
        if (grown == NULL) return NULL; /* no repair this time; the fork goes on */
        modules = grown;
        module_room = room;
    }
    module_ids *m = &modules[module_count++];
    m->offsets = NULL;
    read_module(m, info);
    return m;
}

static int visit(struct dl_phdr_info *info, size_t size, void *context) {
    (void)context;
    if (size < offsetof(struct dl_phdr_info, dlpi_tls_data) + sizeof info->dlpi_tls_data) return 1;
    /* No block yet: this thread never touched the module's variables. */
    if (info->dlpi_tls_modid == 0 || info->dlpi_tls_data == NULL) return 0;
    size_t block = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_TLS) block = info->dlpi_phdr[i].p_memsz;
    }
    const module_ids *m = remembered(info);
    for (size_t i = 0; m != NULL && i < m->count; i++) {
        if (m->offsets[i] > block || block - m->offsets[i] < sizeof(int32_t)) continue;
        if (found_count == found_room) {
            size_t room = found_room != 0 ? found_room * 2 : 32;
            int32_t **grown = realloc(found, room * sizeof *grown);
            if (grown == NULL) return 1;
            found = grown;
            found_room = room;
        }
        found[found_count++] = (int32_t *)((char *)info->dlpi_tls_data + m->offsets[i]);
    }
    return 0;
}

static void before_fork(void) {
    pthread_mutex_lock(&fork_lock);
    found_count = 0;
    dl_iterate_phdr(visit, NULL);
}

static void in_parent(void) {
    found_count = 0;
    pthread_mutex_unlock(&fork_lock);
}

static void in_child(void) {
    for (size_t i = 0; i < found_count; i++) *found[i] = 0;
    found_count = 0;
    pthread_mutex_unlock(&fork_lock); /* this thread took it, before the fork */
}

/* Registered when the library is loaded (it is never unloaded: -z nodelete). */
__attribute__((constructor)) static void forget_ids_after_fork(void) {
    (void)pthread_atfork(before_fork, in_parent, in_child);
}

#endif
