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
 * table, or, in an installed (stripped) library, in its debug file. Before
 * a fork, the forking thread's copies are found (each module's table is
 * read once and remembered until a module is unloaded); in the child they
 * are set to 0, which makes the runtime ask the kernel again. A module
 * whose symbols are nowhere keeps the hazard (switchboard.h, "fork").
 * Files are read only if they are regular files, and their symbols used
 * only if they carry the loaded module's build id. */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "switchboard_file.h"

#if defined(__linux__) && defined(__LP64__)

/* A module holds one copy of the runtime's and one of Mutex's for each of
 * its Swift modules that lock (the command: 9). */
enum { MAX_IDS = 32, MAX_FOUND = 128 };

/* What a module's symbol table says: where its cached ids are. */
typedef struct {
    size_t modid;
    ElfW(Addr) base;
    const ElfW(Phdr) *phdr;
    int count;
    size_t offsets[MAX_IDS];
} module_ids;

/* Held from before a fork to after it (the usual pthread_atfork pattern):
 * two threads forking at once take turns here. No thread-local storage:
 * a library loaded with dlopen has little of it (glibc's static TLS). */
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;
/* Every module with thread-local storage seen (most have no ids: a slot
 * each all the same, so that none is read twice). Forgotten when a module
 * is unloaded: another may take its place and its module id. */
static module_ids *modules;
static size_t module_count, module_room;
static unsigned long long modules_unloaded;

/* The forking thread's copies, found before the fork, cleared in the child. */
static int32_t *found[MAX_FOUND];
static int found_count;

static int cached_id(const char *name, size_t room) {
    static const char *const names[] = {
        "_ZZN5swift14threading_impl5linux13ulock_get_tidEvE3tid", /* the runtime's once-locks */
        "_swift_stdlib_gettid.tid",                               /* Synchronization.Mutex */
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t length = strlen(names[i]);
        if (length < room && memcmp(name, names[i], length + 1) == 0) return 1;
    }
    return 0;
}

/* A file mapped for reading, and its ELF header if it is a 64-bit ELF file
 * whose section headers lie within it. */
typedef struct {
    const unsigned char *bytes;
    size_t size;
    const ElfW(Ehdr) *header;
    const ElfW(Shdr) *sections;
} elf_file;

static int elf_open(const char *path, elf_file *f) {
    memset(f, 0, sizeof *f);
    /* Only a regular file, opened without blocking: a FIFO or a device put
     * where a debug file is looked for must not stop every fork. */
    char why[128];
    int fd = sb__file_open(path, why, sizeof why);
    if (fd < 0) return 0;
    struct stat st;
    void *map = MAP_FAILED;
    if (fstat(fd, &st) == 0 && (size_t)st.st_size >= sizeof(ElfW(Ehdr))) {
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    }
    close(fd);
    if (map == MAP_FAILED) return 0;
    f->bytes = map;
    f->size = (size_t)st.st_size;
    f->header = map;
    /* Every offset and count is checked against the file's size: a file
     * replaced meanwhile, or another one, is read as safely as a good one. */
    const ElfW(Ehdr) *h = f->header;
    if (memcmp(h->e_ident, ELFMAG, SELFMAG) != 0 || h->e_ident[EI_CLASS] != ELFCLASS64 ||
        h->e_shentsize != sizeof(ElfW(Shdr)) || h->e_shoff > f->size ||
        h->e_shnum > (f->size - h->e_shoff) / sizeof(ElfW(Shdr))) {
        munmap(map, f->size);
        memset(f, 0, sizeof *f);
        return 0;
    }
    f->sections = (const void *)(f->bytes + h->e_shoff);
    return 1;
}

static void elf_close(elf_file *f) {
    if (f->bytes != NULL) munmap((void *)f->bytes, f->size);
}

/* Section `i`'s bytes, or NULL if they are not all in the file. */
static const unsigned char *section_bytes(const elf_file *f, size_t i) {
    const ElfW(Shdr) *s = &f->sections[i];
    if (s->sh_type == SHT_NOBITS || s->sh_offset > f->size || s->sh_size > f->size - s->sh_offset) return NULL;
    return f->bytes + s->sh_offset;
}

/* The GNU build id among `size` bytes of notes, or NULL. */
static const unsigned char *build_id_in(const unsigned char *notes, size_t size, size_t *length) {
    size_t at = 0;
    while (size - at >= sizeof(ElfW(Nhdr))) {
        const ElfW(Nhdr) *n = (const void *)(notes + at);
        size_t name = (n->n_namesz + 3u) & ~(size_t)3u, desc = (n->n_descsz + 3u) & ~(size_t)3u;
        at += sizeof *n;
        if (name > size - at || desc > size - at - name) return NULL;
        if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp(notes + at, "GNU", 4) == 0) {
            *length = n->n_descsz;
            return notes + at + name;
        }
        at += name + desc;
    }
    return NULL;
}

/* The loaded module's build id, from its notes in memory. */
static const unsigned char *loaded_build_id(const struct dl_phdr_info *info, size_t *length) {
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type != PT_NOTE) continue;
        const unsigned char *id = build_id_in((const void *)(info->dlpi_addr + p->p_vaddr), p->p_memsz, length);
        if (id != NULL) return id;
    }
    return NULL;
}

static const unsigned char *file_build_id(const elf_file *f, size_t *length) {
    for (size_t i = 0; i < f->header->e_shnum; i++) {
        const unsigned char *notes = f->sections[i].sh_type == SHT_NOTE ? section_bytes(f, i) : NULL;
        const unsigned char *id = notes != NULL ? build_id_in(notes, f->sections[i].sh_size, length) : NULL;
        if (id != NULL) return id;
    }
    return NULL;
}

/* Whether `f` describes the loaded module: the same build id, or, without
 * one, the same program headers (a relative path, or a file replaced since
 * it was loaded, may name another file). */
static int describes(const elf_file *f, const struct dl_phdr_info *info) {
    size_t loaded_length = 0, file_length = 0;
    const unsigned char *loaded = loaded_build_id(info, &loaded_length);
    if (loaded != NULL) {
        const unsigned char *id = file_build_id(f, &file_length);
        return id != NULL && file_length == loaded_length && memcmp(id, loaded, loaded_length) == 0;
    }
    const ElfW(Ehdr) *h = f->header;
    return h->e_phentsize == sizeof(ElfW(Phdr)) && h->e_phnum == info->dlpi_phnum && h->e_phoff <= f->size &&
           h->e_phnum <= (f->size - h->e_phoff) / sizeof(ElfW(Phdr)) &&
           memcmp(f->bytes + h->e_phoff, info->dlpi_phdr, h->e_phnum * sizeof(ElfW(Phdr))) == 0;
}

/* Reads the offsets of the cached ids from `f`'s symbol table; 0 when it
 * has none. */
static int read_symbols(const elf_file *f, module_ids *m) {
    int had_table = 0;
    for (size_t s = 0; s < f->header->e_shnum; s++) {
        const ElfW(Shdr) *table = &f->sections[s];
        if (table->sh_type != SHT_SYMTAB || table->sh_link >= f->header->e_shnum) continue;
        const ElfW(Sym) *symbols = (const void *)section_bytes(f, s);
        const char *names = (const char *)section_bytes(f, table->sh_link);
        if (symbols == NULL || names == NULL) continue;
        size_t names_size = f->sections[table->sh_link].sh_size;
        had_table = 1;
        for (size_t i = 0; i < table->sh_size / sizeof(ElfW(Sym)) && m->count < MAX_IDS; i++) {
            if (ELF64_ST_TYPE(symbols[i].st_info) != STT_TLS || symbols[i].st_name >= names_size) continue;
            if (cached_id(names + symbols[i].st_name, names_size - symbols[i].st_name)) {
                m->offsets[m->count++] = symbols[i].st_value;
            }
        }
    }
    return had_table;
}

/* Reads `path` if it describes the loaded module; 1 when it had a symbol
 * table. */
static int read_file(const char *path, const struct dl_phdr_info *info, module_ids *m) {
    elf_file f;
    if (!elf_open(path, &f)) return 0;
    int read = describes(&f, info) && read_symbols(&f, m);
    elf_close(&f);
    return read;
}

/* The name in the module's .gnu_debuglink, into `out`; 0 when none. */
static int debug_link(const char *path, char *out, size_t size) {
    elf_file f;
    if (!elf_open(path, &f)) return 0;
    int linked = 0;
    const ElfW(Shdr) *names = f.header->e_shstrndx < f.header->e_shnum ? &f.sections[f.header->e_shstrndx] : NULL;
    const char *strings = names != NULL ? (const char *)section_bytes(&f, f.header->e_shstrndx) : NULL;
    for (size_t i = 0; strings != NULL && i < f.header->e_shnum && !linked; i++) {
        if (f.sections[i].sh_name >= names->sh_size) continue;
        const char *name = strings + f.sections[i].sh_name;
        if (strnlen(name, names->sh_size - f.sections[i].sh_name) != 14 || memcmp(name, ".gnu_debuglink", 14) != 0) continue;
        const char *link = (const char *)section_bytes(&f, i);
        size_t length = link != NULL ? strnlen(link, f.sections[i].sh_size) : 0;
        if (length > 0 && length < f.sections[i].sh_size && length < size && memchr(link, '/', length) == NULL) {
            memcpy(out, link, length + 1);
            linked = 1;
        }
    }
    elf_close(&f);
    return linked;
}

/* Where the symbols are: the module's own file, or, when it was stripped,
 * its debug file where gdb looks first (beside it, in .debug/ beside it,
 * under /usr/lib/debug), the one with the module's build id. */
static void find_symbols(const struct dl_phdr_info *info, const char *path, module_ids *m) {
    if (read_file(path, info, m)) return;
    char link[256], dir[PATH_MAX], candidate[PATH_MAX + 300];
    if (!debug_link(path, link, sizeof link)) return;
    const char *slash = strrchr(path, '/');
    size_t length = slash != NULL ? (size_t)(slash - path) : 0;
    if (length >= sizeof dir) return;
    memcpy(dir, path, length);
    dir[length] = '\0';
    const char *formats[] = {"%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s"};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        snprintf(candidate, sizeof candidate, formats[i], dir, link);
        if (read_file(candidate, info, m)) return;
    }
}

/* The module's file: its name as loaded if absolute; else (the program, or
 * a module loaded by a relative name before the directory changed) the
 * file mapped at its first segment, as /proc/self/maps names it. */
static int module_path(const struct dl_phdr_info *info, char *out, size_t size) {
    const char *name = info->dlpi_name;
    if (name != NULL && name[0] == '/') {
        if (strlen(name) >= size) return 0;
        strcpy(out, name);
        return 1;
    }
    ElfW(Addr) start = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_LOAD) {
            start = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            break;
        }
    }
    FILE *maps = fopen("/proc/self/maps", "re");
    if (maps == NULL) return 0;
    char line[PATH_MAX + 128];
    int found_path = 0;
    while (!found_path && fgets(line, sizeof line, maps) != NULL) {
        unsigned long from = 0, to = 0;
        int at = 0;
        if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &from, &to, &at) < 2 || at == 0) continue;
        if (start < from || start >= to || line[at] != '/') continue;
        size_t length = strcspn(line + at, "\n");
        if (length < size) {
            memcpy(out, line + at, length);
            out[length] = '\0';
            found_path = 1;
        }
    }
    fclose(maps);
    return found_path;
}

static const module_ids *remembered(const struct dl_phdr_info *info) {
    if (info->dlpi_subs != modules_unloaded) {
        module_count = 0;
        modules_unloaded = info->dlpi_subs;
    }
    for (size_t i = 0; i < module_count; i++) {
        const module_ids *m = &modules[i];
        if (m->modid == info->dlpi_tls_modid && m->base == info->dlpi_addr && m->phdr == info->dlpi_phdr) return m;
    }
    if (module_count == module_room) {
        size_t room = module_room != 0 ? module_room * 2 : 16;
        module_ids *grown = realloc(modules, room * sizeof *grown);
        if (grown == NULL) return NULL; /* no repair this time; the fork goes on */
        modules = grown;
        module_room = room;
    }
    module_ids *m = &modules[module_count++];
    memset(m, 0, sizeof *m);
    m->modid = info->dlpi_tls_modid;
    m->base = info->dlpi_addr;
    m->phdr = info->dlpi_phdr;
    char path[PATH_MAX];
    if (module_path(info, path, sizeof path)) find_symbols(info, path, m);
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
    for (int i = 0; m != NULL && i < m->count && found_count < MAX_FOUND; i++) {
        if (m->offsets[i] <= block && block - m->offsets[i] >= sizeof(int32_t)) {
            found[found_count++] = (int32_t *)((char *)info->dlpi_tls_data + m->offsets[i]);
        }
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
    for (int i = 0; i < found_count; i++) *found[i] = 0;
    found_count = 0;
    pthread_mutex_unlock(&fork_lock); /* this thread took it, before the fork */
}

/* Registered when the library is loaded (it is never unloaded: -z nodelete). */
__attribute__((constructor)) static void forget_ids_after_fork(void) {
    (void)pthread_atfork(before_fork, in_parent, in_child);
}

#endif
