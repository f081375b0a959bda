/* Private to CSwitchboard: where a loaded module's named thread-local
 * variables are, read from its ELF file or its debug file (fork_ids.c's
 * helper; module_symbols.c). */
#ifndef SB_MODULE_SYMBOLS_H
#define SB_MODULE_SYMBOLS_H

/* (Included after _GNU_SOURCE is defined: struct dl_phdr_info.) */
#include <link.h>
#include <stddef.h>

/* The loaded module's GNU build id, read from its notes in memory; NULL if
 * it has none. */
const unsigned char *sb__module_build_id(const struct dl_phdr_info *info, size_t *length);

/* The offsets, within the module's thread-local block, of its thread-local
 * symbols whose names are among `names` (NULL-terminated), in *offsets
 * (malloc'd; the caller frees it) and *count. Read from the module's file
 * (found by its name as loaded, or through /proc/self/maps) or, when that
 * has no symbol table, from its debug file (.gnu_debuglink: beside it, in
 * .debug/, under /usr/lib/debug); a file is used only if it is a regular
 * file with the module's build id (or, without one, its program headers).
 * Files are read with pread, never mapped: one rewritten meanwhile cannot
 * fault. Returns 0 when no symbol table was found (or memory ran out). */
int sb__module_tls_symbols(const struct dl_phdr_info *info, const char *const *names, size_t **offsets,
                           size_t *count);

#endif
