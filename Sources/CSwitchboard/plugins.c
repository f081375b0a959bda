/* Plugin support that needs <link.h> and <elf.h>: checking a file before
 * dlopen sees it, promoting the library to the global symbol scope, and
 * listing a loaded plugin's Target_ tables. */
#define _GNU_SOURCE
#include "switchboard_internal.h"
#include "switchboard_file.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if __ELF_NATIVE_CLASS == 64
#define SYMBOL_BIND ELF64_ST_BIND
#define SYMBOL_TYPE ELF64_ST_TYPE
#else
#define SYMBOL_BIND ELF32_ST_BIND
#define SYMBOL_TYPE ELF32_ST_TYPE
#endif

/* Why `fd` (of `size` bytes) cannot be a shared object for this process, or
 * NULL. glibc trusts the program headers: a truncated library makes dlopen
 * map pages past the end of the file and the process dies of SIGBUS. */
static const char *elf_problem(int fd, off_t size) {
    ElfW(Ehdr) header;
    if (pread(fd, &header, sizeof header, 0) != (ssize_t)sizeof header ||
        memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
        return "not an ELF file";
    if (header.e_ident[EI_CLASS] != (__ELF_NATIVE_CLASS == 64 ? ELFCLASS64 : ELFCLASS32))
        return "an ELF file of another word size";
    if (header.e_type != ET_DYN) return "not a shared object";
    if (header.e_phentsize != sizeof(ElfW(Phdr)) || header.e_phnum == 0 ||
        header.e_phoff > (ElfW(Off))size ||
        (ElfW(Off))header.e_phnum * sizeof(ElfW(Phdr)) > (ElfW(Off))size - header.e_phoff)
        return "truncated or damaged (program headers)";
    for (ElfW(Half) i = 0; i < header.e_phnum; i++) {
        ElfW(Phdr) ph;
        off_t at = (off_t)(header.e_phoff + (ElfW(Off))i * sizeof ph);
        if (pread(fd, &ph, sizeof ph, at) != (ssize_t)sizeof ph) return "truncated or damaged (program headers)";
        if ((ph.p_type == PT_LOAD || ph.p_type == PT_DYNAMIC) &&
            (ph.p_offset > (ElfW(Off))size || ph.p_filesz > (ElfW(Off))size - ph.p_offset))
            return "truncated or damaged (a segment ends past the end of the file)";
    }
    return NULL;
}

int sb__plugin_file_check(const char *path, char *why, size_t size) {
    int fd = sb__file_open(path, why, size);
    if (fd < 0) return -1;
    struct stat st;
    const char *problem = fstat(fd, &st) != 0 ? "cannot stat the file" : elf_problem(fd, st.st_size);
    close(fd);
    if (problem == NULL) return 0;
    snprintf(why, size, "%s", problem);
    return -1;
}

void sb__promote_self(void) {
    static int done;
    if (__atomic_load_n(&done, __ATOMIC_ACQUIRE)) return;
    Dl_info info;
    if (dladdr((void *)&sb__promote_self, &info) != 0 && info.dli_fname != NULL) {
        /* The reference is kept on purpose: the library must never unload
         * while plugins use it. In an executable that exports sb_* itself
         * (the switchboard command) this finds nothing to promote. */
        (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
    }
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}

/* The dynamic section's addresses are absolute once glibc has relocated
 * them, but some loaders leave them relative to the load base. */
static const void *dyn_address(const struct link_map *map, ElfW(Addr) value) {
    return (const void *)(value < map->l_addr ? map->l_addr + value : value);
}

/* The number of dynamic symbols, from DT_HASH or DT_GNU_HASH. */
static size_t symbol_count(const struct link_map *map, const ElfW(Word) *hash, const uint32_t *gnu_hash) {
    (void)map;
    if (hash != NULL) return hash[1]; /* nchain */
    if (gnu_hash == NULL) return 0;
    uint32_t nbuckets = gnu_hash[0];
    uint32_t symoffset = gnu_hash[1];
    uint32_t bloom_size = gnu_hash[2];
    const uint32_t *buckets = gnu_hash + 4 + bloom_size * (sizeof(ElfW(Addr)) / 4);
    const uint32_t *chain = buckets + nbuckets;
    uint32_t last = 0;
    for (uint32_t i = 0; i < nbuckets; i++) {
        if (buckets[i] > last) last = buckets[i];
    }
    if (last < symoffset) return symoffset;
    while ((chain[last - symoffset] & 1) == 0) last++;
    return (size_t)last + 1;
}

int sb__plugin_targets(void *handle, void (*each)(const char *name, void *context), void *context) {
    struct link_map *map = NULL;
    if (handle == NULL || each == NULL || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == NULL) return -1;
    const ElfW(Sym) *symbols = NULL;
    const char *names = NULL;
    const ElfW(Word) *hash = NULL;
    const uint32_t *gnu_hash = NULL;
    for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB: symbols = dyn_address(map, d->d_un.d_ptr); break;
        case DT_STRTAB: names = dyn_address(map, d->d_un.d_ptr); break;
        case DT_HASH: hash = dyn_address(map, d->d_un.d_ptr); break;
        case DT_GNU_HASH: gnu_hash = dyn_address(map, d->d_un.d_ptr); break;
        default: break;
        }
    }
    if (symbols == NULL || names == NULL || (hash == NULL && gnu_hash == NULL)) return -1;
    size_t count = symbol_count(map, hash, gnu_hash);
    for (size_t i = 0; i < count; i++) {
        const ElfW(Sym) *sym = &symbols[i];
        unsigned char binding = SYMBOL_BIND(sym->st_info);
        if (sym->st_shndx == SHN_UNDEF || SYMBOL_TYPE(sym->st_info) != STT_OBJECT) continue;
        if (binding != STB_GLOBAL && binding != STB_WEAK) continue;
        const char *name = names + sym->st_name;
        if (strncmp(name, "Target_", 7) == 0 && name[7] != '\0') each(name, context);
    }
    return 0;
}

long long sb__plugin_symbol_size(const void *address) {
    Dl_info info;
    void *entry = NULL;
    if (address == NULL || dladdr1(address, &info, &entry, RTLD_DL_SYMENT) == 0 || entry == NULL) return -1;
    if (info.dli_saddr != address) return -1; /* another symbol holds the address */
    const ElfW(Sym) *symbol = entry;
    return (long long)symbol->st_size;
}

int sb__plugin_defines(void *handle, const void *address) {
    struct link_map *plugin = NULL, *holder = NULL;
    Dl_info info;
    if (handle == NULL || address == NULL || dlinfo(handle, RTLD_DI_LINKMAP, &plugin) != 0 || plugin == NULL) return 0;
    if (dladdr1(address, &info, (void **)&holder, RTLD_DL_LINKMAP) == 0 || holder == NULL) return 0;
    return holder == plugin;
}
