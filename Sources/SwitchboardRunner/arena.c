/*
 * Memory for the Lua state a script's scenarios are forked from. fork copies
 * a page-table entry for each 4 KiB page the parent has, and each scenario's
 * process drops them all again when it ends: with the definitions of 10,000
 * scenarios in ordinary pages (8 MiB of them), that was the part of a
 * scenario's cost that grew with its file. Here the small blocks the top
 * level makes come from 2 MiB chunks the kernel may back with huge pages
 * (MADV_HUGEPAGE): one entry each to copy.
 *
 * Blocks up to SMALL_MAX bytes come from size classes GRAIN bytes apart,
 * each with a free list; Lua tells the size of every block it frees or
 * resizes, so blocks carry no header. Larger blocks are malloc'd, and so
 * are small ones once the chunks hold `cap` bytes: memory parked in the free
 * lists of one size cannot then grow past that (a top level that churns
 * through many sizes would otherwise hold many times --max-memory), and
 * what the state holds beyond it is malloc's, which --max-memory bounds.
 * Which blocks are the arena's is known by address (owns).
 *
 * In a scenario's process the arena is sealed: new blocks come from malloc,
 * as in any other state, and a block of the arena that is freed is left
 * where it is (writing to it would copy its page; the process ends soon).
 * So a scenario's own memory behaves as it always did.
 *
 * Where there are no huge pages the chunks are ordinary memory, and all
 * works as before. Under valgrind, memcheck is told of every block (client
 * requests: no-ops otherwise), so it checks the Lua heap here as it checks
 * malloc's.
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

#define GRAIN 16 /* every block aligned to it, as malloc's are */
#define SMALL_MAX 1024
#define CLASSES (SMALL_MAX / GRAIN)
#define CHUNK ((size_t)2 << 20) /* a huge page */

struct sbr_arena {
    void *free[CLASSES]; /* class c holds blocks of (c + 1) * GRAIN bytes */
    char *next, *end;    /* what the newest chunk has not handed out */
    char **chunks;       /* every chunk, by address */
    size_t count, capacity, cap;
    int sealed;
};

sbr_arena *sbr_arena_new(size_t cap) {
    sbr_arena *a = calloc(1, sizeof *a);
    if (a != NULL) a->cap = cap;
    return a;
}

void sbr_arena_seal(sbr_arena *a) {
    if (a != NULL) a->sealed = 1;
}

void sbr_arena_free(sbr_arena *a) {
    if (a == NULL) return;
    for (size_t i = 0; i < a->count; i++) munmap(a->chunks[i], CHUNK);
    free(a->chunks);
    free(a);
}

/* Where `chunk` goes in the sorted list (or is). */
static size_t position(const sbr_arena *a, const char *chunk) {
    size_t low = 0, high = a->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (a->chunks[middle] < chunk) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    return low;
}

static int owns(const sbr_arena *a, const void *block) {
    const char *chunk = (const char *)((uintptr_t)block & ~(uintptr_t)(CHUNK - 1));
    size_t at = position(a, chunk);
    return at < a->count && a->chunks[at] == chunk;
}

/* A new chunk, aligned to its size (so that it can be one huge page). */
static int grow(sbr_arena *a) {
    if (a->cap > 0 && (a->count + 1) * CHUNK > a->cap) return 0;
    if (a->count == a->capacity) {
        size_t capacity = a->capacity > 0 ? 2 * a->capacity : 16;
        char **chunks = realloc(a->chunks, capacity * sizeof *chunks);
        if (chunks == NULL) return 0;
        a->chunks = chunks;
        a->capacity = capacity;
    }
    char *mapped = mmap(NULL, 2 * CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) return 0;
    char *chunk = (char *)(((uintptr_t)mapped + CHUNK - 1) & ~(uintptr_t)(CHUNK - 1));
    if (chunk > mapped) munmap(mapped, (size_t)(chunk - mapped));
    munmap(chunk + CHUNK, (size_t)(mapped + 2 * CHUNK - (chunk + CHUNK)));
#ifdef MADV_HUGEPAGE
    (void)madvise(chunk, CHUNK, MADV_HUGEPAGE); /* a wish: ordinary pages do too */
#endif
    VALGRIND_MAKE_MEM_NOACCESS(chunk, CHUNK); /* until handed out */
    size_t at = position(a, chunk);
    memmove(a->chunks + at + 1, a->chunks + at, (a->count - at) * sizeof *a->chunks);
    a->chunks[at] = chunk;
    a->count++;
    a->next = chunk;
    a->end = chunk + CHUNK;
    return 1;
}

static size_t class_of(size_t size) {
    return (size + GRAIN - 1) / GRAIN - 1;
}

static void *take(sbr_arena *a, size_t size) {
    if (a->sealed || size > SMALL_MAX) return malloc(size);
    size_t c = class_of(size);
    void *block = a->free[c];
    if (block != NULL) {
        VALGRIND_MAKE_MEM_DEFINED(block, sizeof block);
        memcpy(&a->free[c], block, sizeof block);
    } else {
        size_t whole = (c + 1) * GRAIN;
        if ((size_t)(a->end - a->next) < whole && !grow(a)) return malloc(size); /* the cap, or no memory */
        block = a->next;
        a->next += whole;
    }
    VALGRIND_MALLOCLIKE_BLOCK(block, size, 0, 0);
    return block;
}

static void give_back(sbr_arena *a, void *block, size_t size) {
    if (size > SMALL_MAX || !owns(a, block)) {
        free(block);
        return;
    }
    VALGRIND_FREELIKE_BLOCK(block, 0);
    if (a->sealed) return; /* left where it is */
    size_t c = class_of(size);
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
    if (block == NULL) return take(a, size);
    /* A block of malloc's stays with malloc. */
    if (old > SMALL_MAX || !owns(a, block)) return realloc(block, size);
    if (size <= SMALL_MAX && class_of(old) == class_of(size)) {
        VALGRIND_RESIZEINPLACE_BLOCK(block, old, size, 0);
        return block;
    }
    void *moved = take(a, size);
    if (moved == NULL) {
        /* Lua counts on a block that shrinks staying put: it does, and is
         * given back later by its smaller size (to a smaller class, or,
         * sealed, left where it is). */
        if (size > old) return NULL;
        VALGRIND_RESIZEINPLACE_BLOCK(block, old, size, 0);
        return block;
    }
    memcpy(moved, block, old < size ? old : size);
    give_back(a, block, old);
    return moved;
}
