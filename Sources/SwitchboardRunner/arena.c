/*
 * Memory for the Lua state a script's scenarios are forked from. fork copies
 * a page-table entry for each 4 KiB page the parent has, and each scenario's
 * process drops them all again when it ends: with the definitions of 10,000
 * scenarios in ordinary pages (8 MiB of them), that was the part of a
 * scenario's cost that grew with its file. Here small blocks come from
 * 2 MiB chunks the kernel may back with huge pages (MADV_HUGEPAGE), one
 * entry each to copy; a process that writes to one gets only the 4 KiB page
 * it wrote to copied (the kernel splits the mapping), not the 2 MiB.
 *
 * Blocks up to SMALL_MAX bytes come from size classes GRAIN bytes apart,
 * each with a free list; Lua tells the size of every block it frees or
 * resizes, so blocks carry no header. Larger blocks are malloc'd. Chunks go
 * back to the system only with the arena. Where there are no huge pages the
 * chunks are ordinary memory, and everything works as before. Under
 * valgrind, memcheck is told of every block (client requests: no-ops
 * otherwise), so it checks the Lua heap here as it checks malloc's.
 */
/* MAP_ANONYMOUS and madvise are not in POSIX 2008. */
#define _DEFAULT_SOURCE

#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define TELL_VALGRIND 1
#endif
#endif
#ifndef TELL_VALGRIND
#define VALGRIND_MALLOCLIKE_BLOCK(block, size, redzone, zeroed) ((void)0)
#define VALGRIND_FREELIKE_BLOCK(block, redzone) ((void)0)
#define VALGRIND_RESIZEINPLACE_BLOCK(block, old, size, redzone) ((void)0)
#define VALGRIND_MAKE_MEM_NOACCESS(at, size) ((void)0)
#define VALGRIND_MAKE_MEM_DEFINED(at, size) ((void)0)
#define VALGRIND_MAKE_MEM_UNDEFINED(at, size) ((void)0)
#endif

#define GRAIN 16                      /* every block aligned to it, as malloc's are */
#define SMALL_MAX 1024
#define CLASSES (SMALL_MAX / GRAIN)
#define CHUNK ((size_t)2 << 20)        /* a huge page */
#define CHUNK_HEADER GRAIN            /* the previous chunk, for sbr_arena_free */

struct sbr_arena {
    void *free[CLASSES];   /* class c holds blocks of (c + 1) * GRAIN bytes */
    char *next, *end;      /* what the newest chunk has not handed out */
    char *chunks;          /* the newest chunk; each starts with the previous one */
};

sbr_arena *sbr_arena_new(void) {
    return calloc(1, sizeof(sbr_arena));
}

void sbr_arena_free(sbr_arena *a) {
    if (a == NULL) return;
    while (a->chunks != NULL) {
        char *chunk = a->chunks;
        memcpy(&a->chunks, chunk, sizeof a->chunks);
        munmap(chunk, CHUNK);
    }
    free(a);
}

/* A new chunk, aligned to its size (so that it can be one huge page). */
static int grow(sbr_arena *a) {
    char *mapped = mmap(NULL, 2 * CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) return 0;
    char *chunk = (char *)(((uintptr_t)mapped + CHUNK - 1) & ~(uintptr_t)(CHUNK - 1));
    if (chunk > mapped) munmap(mapped, (size_t)(chunk - mapped));
    munmap(chunk + CHUNK, (size_t)(mapped + 2 * CHUNK - (chunk + CHUNK)));
#ifdef MADV_HUGEPAGE
    (void)madvise(chunk, CHUNK, MADV_HUGEPAGE); /* a wish: ordinary pages do too */
#endif
    memcpy(chunk, &a->chunks, sizeof a->chunks);
    VALGRIND_MAKE_MEM_NOACCESS(chunk + CHUNK_HEADER, CHUNK - CHUNK_HEADER); /* until handed out */
    a->chunks = chunk;
    a->next = chunk + CHUNK_HEADER;
    a->end = chunk + CHUNK;
    return 1;
}

static size_t class_of(size_t size) {
    return (size + GRAIN - 1) / GRAIN - 1;
}

static void *take(sbr_arena *a, size_t size) {
    size_t c = class_of(size);
    void *block = a->free[c];
    if (block != NULL) {
        VALGRIND_MAKE_MEM_DEFINED(block, sizeof block);
        memcpy(&a->free[c], block, sizeof block);
    } else {
        size_t whole = (c + 1) * GRAIN;
        if ((size_t)(a->end - a->next) < whole && !grow(a)) return NULL;
        block = a->next;
        a->next += whole;
    }
    VALGRIND_MALLOCLIKE_BLOCK(block, size, 0, 0);
    return block;
}

static void give_back(sbr_arena *a, void *block, size_t size) {
    if (size > SMALL_MAX) {
        free(block);
        return;
    }
    size_t c = class_of(size);
    VALGRIND_FREELIKE_BLOCK(block, 0);
    VALGRIND_MAKE_MEM_UNDEFINED(block, sizeof a->free[c]); /* the link, ours to write */
    memcpy(block, &a->free[c], sizeof a->free[c]);
    VALGRIND_MAKE_MEM_NOACCESS(block, sizeof a->free[c]);
    a->free[c] = block;
}

void *sbr_arena_resize(sbr_arena *a, void *block, size_t old, size_t size) {
    if (size == 0) {
        if (block != NULL) give_back(a, block, old);
        return NULL;
    }
    if (block == NULL) return size > SMALL_MAX ? malloc(size) : take(a, size);
    if (old > SMALL_MAX && size > SMALL_MAX) return realloc(block, size);
    if (old <= SMALL_MAX && size <= SMALL_MAX && class_of(old) == class_of(size)) {
        VALGRIND_RESIZEINPLACE_BLOCK(block, old, size, 0);
        return block;
    }
    void *moved = size > SMALL_MAX ? malloc(size) : take(a, size);
    if (moved == NULL) {
        /* Lua counts on a block that shrinks staying put: it does, and is
         * given back later, by its smaller size, as a smaller block. */
        if (size > old) return NULL;
        if (old <= SMALL_MAX) VALGRIND_RESIZEINPLACE_BLOCK(block, old, size, 0);
        return block;
    }
    memcpy(moved, block, old < size ? old : size);
    give_back(a, block, old);
    return moved;
}
