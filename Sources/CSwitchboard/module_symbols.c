/* Where a loaded module's named thread-local variables are: its ELF symbol
 * table, in its own file or in its debug file (see module_symbols.h).
 *
 * Everything is read with pread into buffers of the size asked for, and
 * every offset and size is checked against the file: a file that is not
 * the module, truncated or rewritten while it is read, or made to mislead
 * is refused or yields nothing, never a fault. */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "module_symbols.h"
#include "switchboard_file.h"

#if defined(__linux__) && defined(__LP64__)

/* Sizes past which a section is not read: no symbol table of a real module
 * comes near (the switchboard command's: 2.4 MB). */
enum { MAX_TABLE = 256 << 20, MAX_NOTES = 64 << 10, MAX_NAMES = 1 << 20, MAX_NAME = 128 };

typedef struct {
    int fd;
    off_t size;
    ElfW(Ehdr) header;
    ElfW(Shdr) *sections;
} elf_file;

/* Reads `length` bytes at `offset`; 0 when fewer are there. */
static int read_at(const elf_file *f, void *into, size_t length, size_t offset) {
    if (offset > (size_t)f->size || length > (size_t)f->size - offset) return 0;
    size_t done = 0;
    while (done < length) {
        ssize_t n = pread(f->fd, (char *)into + done, length - done, (off_t)(offset + done));
        if (n <= 0) return 0;
        done += (size_t)n;
    }
    return 1;
}

static void elf_close(elf_file *f) {
    free(f->sections);
    if (f->fd >= 0) close(f->fd);
    f->sections = NULL;
    f->fd = -1;
}

/* Opens `path` if it is a regular file holding a 64-bit ELF file's header
 * and section headers. */
static int elf_open(const char *path, elf_file *f) {
    memset(f, 0, sizeof *f);
    char why[128];
    f->fd = sb__file_open(path, why, sizeof why); /* a regular file, opened without blocking */
    if (f->fd < 0) return 0;
    struct stat st;
    const ElfW(Ehdr) *h = &f->header;
    if (fstat(f->fd, &st) != 0 || (f->size = st.st_size, !read_at(f, &f->header, sizeof f->header, 0)) ||
        memcmp(h->e_ident, ELFMAG, SELFMAG) != 0 || h->e_ident[EI_CLASS] != ELFCLASS64 ||
        h->e_shentsize != sizeof(ElfW(Shdr)) || h->e_shnum == 0 ||
        (f->sections = malloc(h->e_shnum * sizeof(ElfW(Shdr)))) == NULL ||
        !read_at(f, f->sections, h->e_shnum * sizeof(ElfW(Shdr)), h->e_shoff)) {
        elf_close(f);
        return 0;
    }
    return 1;
}

/* Section `i`'s bytes, NUL-terminated, if it has at most `max` of them in
 * the file; the caller frees them. */
static unsigned char *read_section(const elf_file *f, size_t i, size_t max) {
    if (i >= f->header.e_shnum) return NULL;
    const ElfW(Shdr) *s = &f->sections[i];
    if (s->sh_type == SHT_NOBITS || s->sh_size > max) return NULL;
    unsigned char *bytes = malloc(s->sh_size + 1);
    if (bytes == NULL) return NULL;
    if (!read_at(f, bytes, s->sh_size, s->sh_offset)) {
        free(bytes);
        return NULL;
    }
    bytes[s->sh_size] = '\0';
    return bytes;
}

/* The GNU build id among `size` bytes of notes, or NULL. */
static const unsigned char *build_id_in(const unsigned char *notes, size_t size, size_t *length) {
    size_t at = 0;
    while (size - at >= sizeof(ElfW(Nhdr))) {
        ElfW(Nhdr) n;
        memcpy(&n, notes + at, sizeof n);
        size_t name = (n.n_namesz + 3u) & ~(size_t)3u, desc = (n.n_descsz + 3u) & ~(size_t)3u;
        at += sizeof n;
        if (name > size - at || desc > size - at - name) return NULL;
        if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 && memcmp(notes + at, "GNU", 4) == 0) {
            *length = n.n_descsz;
            return notes + at + name;
        }
        at += name + desc;
    }
    return NULL;
}

const unsigned char *sb__module_build_id(const struct dl_phdr_info *info, size_t *length) {
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type != PT_NOTE) continue;
        const unsigned char *id = build_id_in((const void *)(info->dlpi_addr + p->p_vaddr), p->p_memsz, length);
        if (id != NULL) return id;
    }
    return NULL;
}

/* Whether `f` describes the loaded module: the same build id, or, without
 * one, the same program headers (a relative path, or a file replaced since
 * it was loaded, may name another file). */
static int describes(const elf_file *f, const struct dl_phdr_info *info) {
    size_t loaded_length = 0;
    const unsigned char *loaded = sb__module_build_id(info, &loaded_length);
    if (loaded != NULL) {
        int same = 0;
        for (size_t i = 0; i < f->header.e_shnum && !same; i++) {
            if (f->sections[i].sh_type != SHT_NOTE) continue;
            unsigned char *notes = read_section(f, i, MAX_NOTES);
            size_t length = 0;
            const unsigned char *id = notes != NULL ? build_id_in(notes, f->sections[i].sh_size, &length) : NULL;
            same = id != NULL && length == loaded_length && memcmp(id, loaded, length) == 0;
            free(notes);
        }
        return same;
    }
    const ElfW(Ehdr) *h = &f->header;
    size_t length = (size_t)h->e_phnum * sizeof(ElfW(Phdr));
    if (h->e_phentsize != sizeof(ElfW(Phdr)) || h->e_phnum != info->dlpi_phnum || length == 0) return 0;
    ElfW(Phdr) *headers = malloc(length);
    int same = headers != NULL && read_at(f, headers, length, h->e_phoff) && memcmp(headers, info->dlpi_phdr, length) == 0;
    free(headers);
    return same;
}

static int wanted(const char *name, const char *const *names) {
    for (size_t i = 0; names[i] != NULL; i++) {
        if (strcmp(name, names[i]) == 0) return 1;
    }
    return 0;
}

/* Appends the offsets of `f`'s wanted thread-local symbols; 0 when it has
 * no symbol table, or memory ran out. */
static int read_symbols(const elf_file *f, const char *const *names, size_t **offsets, size_t *count) {
    int had_table = 0;
    for (size_t s = 0; s < f->header.e_shnum; s++) {
        const ElfW(Shdr) *table = &f->sections[s];
        if (table->sh_type != SHT_SYMTAB || table->sh_link >= f->header.e_shnum) continue;
        ElfW(Sym) *symbols = (ElfW(Sym) *)read_section(f, s, MAX_TABLE);
        if (symbols == NULL) continue;
        had_table = 1;
        const ElfW(Shdr) *strings = &f->sections[table->sh_link];
        for (size_t i = 0; i < table->sh_size / sizeof(ElfW(Sym)); i++) {
            if (ELF64_ST_TYPE(symbols[i].st_info) != STT_TLS || symbols[i].st_name >= strings->sh_size) continue;
            /* Only the names of thread-local symbols are read: a few. */
            char name[MAX_NAME + 1];
            size_t room = strings->sh_size - symbols[i].st_name;
            size_t length = room < MAX_NAME ? room : MAX_NAME;
            if (!read_at(f, name, length, strings->sh_offset + symbols[i].st_name)) continue;
            name[length] = '\0';
            if (!wanted(name, names)) continue;
            size_t *grown = realloc(*offsets, (*count + 1) * sizeof *grown);
            if (grown == NULL) {
                free(symbols);
                return 0;
            }
            *offsets = grown;
            (*offsets)[(*count)++] = symbols[i].st_value;
        }
        free(symbols);
    }
    return had_table;
}

/* Reads `path` if it describes the loaded module; 1 when it had a symbol
 * table. */
static int read_file(const char *path, const struct dl_phdr_info *info, const char *const *names, size_t **offsets,
                     size_t *count) {
    elf_file f;
    if (!elf_open(path, &f)) return 0;
    int read = describes(&f, info) && read_symbols(&f, names, offsets, count);
    elf_close(&f);
    return read;
}

/* The file name in `path`'s .gnu_debuglink, into `out`; 0 when none. */
static int debug_link(const char *path, char *out, size_t size) {
    elf_file f;
    if (!elf_open(path, &f)) return 0;
    int linked = 0;
    char *names = (char *)read_section(&f, f.header.e_shstrndx, MAX_NAMES);
    for (size_t i = 0; names != NULL && i < f.header.e_shnum && !linked; i++) {
        if (f.sections[i].sh_name >= f.sections[f.header.e_shstrndx].sh_size ||
            strcmp(names + f.sections[i].sh_name, ".gnu_debuglink") != 0) {
            continue;
        }
        char *link = (char *)read_section(&f, i, 4096);
        size_t length = link != NULL ? strlen(link) : 0;
        if (length > 0 && length < size && strchr(link, '/') == NULL) {
            memcpy(out, link, length + 1);
            linked = 1;
        }
        free(link);
    }
    free(names);
    elf_close(&f);
    return linked;
}

/* The module's file: its name as loaded if absolute; else (the program, or
 * a module loaded by a relative name, perhaps before the directory changed)
 * the file mapped at its first segment, as /proc/self/maps names it (with
 * a newline shown as \012). */
static int module_path(const struct dl_phdr_info *info, char *out, size_t size) {
    const char *name = info->dlpi_name;
    if (name != NULL && name[0] == '/') {
        if (strlen(name) >= size) return 0;
        strcpy(out, name);
        return 1;
    }
    ElfW(Addr) start = 0;
    for (int i = 0; i < info->dlpi_phnum && start == 0; i++) {
        if (info->dlpi_phdr[i].p_type == PT_LOAD) start = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
    }
    FILE *maps = fopen("/proc/self/maps", "re");
    if (maps == NULL) return 0;
    char line[PATH_MAX + 128];
    int found = 0;
    while (!found && fgets(line, sizeof line, maps) != NULL) {
        unsigned long from = 0, to = 0;
        int at = 0;
        if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &from, &to, &at) < 2 || at == 0) continue;
        if (start < from || start >= to || line[at] != '/') continue;
        size_t length = 0;
        for (const char *c = line + at; *c != '\0' && *c != '\n' && length + 1 < size; c++) {
            if (strncmp(c, "\\012", 4) == 0) {
                out[length++] = '\n';
                c += 3;
            } else {
                out[length++] = *c;
            }
        }
        out[length] = '\0';
        found = 1;
    }
    fclose(maps);
    return found;
}

int sb__module_tls_symbols(const struct dl_phdr_info *info, const char *const *names, size_t **offsets,
                           size_t *count) {
    *offsets = NULL;
    *count = 0;
    char path[PATH_MAX];
    if (!module_path(info, path, sizeof path)) return 0;
    if (read_file(path, info, names, offsets, count)) return 1;
    char link[256], candidate[PATH_MAX + 300];
    if (!debug_link(path, link, sizeof link)) return 0;
    char *slash = strrchr(path, '/');
    if (slash == NULL) return 0;
    *slash = '\0'; /* path is now its directory */
    const char *formats[] = {"%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s"};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        snprintf(candidate, sizeof candidate, formats[i], path, link);
        if (read_file(candidate, info, names, offsets, count)) return 1;
    }
    return 0;
}

#else

const unsigned char *sb__module_build_id(const struct dl_phdr_info *info, size_t *length) {
    (void)info;
    (void)length;
    return NULL;
}

int sb__module_tls_symbols(const struct dl_phdr_info *info, const char *const *names, size_t **offsets,
                           size_t *count) {
    (void)info;
    (void)names;
    *offsets = NULL;
    *count = 0;
    return 0;
}

#endif
