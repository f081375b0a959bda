/*
 * A delivery queue with a descriptor: work pushed from any thread, run on the
 * one thread that owns the queue, with an eventfd that an event loop watches
 * (sb.fd). Private to the Lua module; written to know nothing of Lua, so that
 * it can become the C library's delivery queue.
 *
 * Two lists:
 *   - deliveries, first in first out: what the owner's poll runs (a call
 *     queued from another thread, a coroutine to resume). A push may count
 *     against a limit (calls: SB_LUA_MAX_QUEUED) or not (a resume, whose node
 *     was reserved before, so it is never refused while the queue is open);
 *   - releases, in any order: chores for the owner that run no user code
 *     (dropping a registry reference). Any entry on the owning thread may
 *     take them all; the check when there are none is one atomic load.
 *
 * The descriptor is readable while work waits, for level- and edge-triggered
 * watchers alike: a push onto an idle queue writes it (one write per wake-up,
 * not one per item); after the owner ran a batch, sb_lua_queue_rearm empties
 * it if nothing is left, and otherwise writes it again, making the new edge
 * an edge-triggered watcher needs for work queued behind the batch. Taking
 * items never touches it, so no call pays a system call for work queued by
 * others. Every operation is O(1) but closing and taking the releases, which
 * are O(what they take).
 */
#ifndef SB_LUA_QUEUE_H
#define SB_LUA_QUEUE_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct sb_lua_node {
    struct sb_lua_node *next;
    unsigned char counted; /* (queue) pushed against a limit */
} sb_lua_node;

typedef struct sb_lua_queue {
    pthread_mutex_t lock;
    sb_lua_node *head, *tail; /* (lock) deliveries */
    size_t length;            /* (lock) deliveries waiting */
    size_t counted;           /* (lock) of them, those pushed against a limit */
    sb_lua_node *releases;    /* (lock to write) a stack; read alone as a hint */
    int closed;               /* (lock) pushes are refused */
    int fd;                   /* (lock) the eventfd, -1 until asked for */
    pid_t fd_pid;             /* (lock) the process that made it (a fork's child makes its own) */
    int armed;                /* (lock) the eventfd was written since it was last emptied */
} sb_lua_queue;

typedef enum sb_lua_push {
    SB_LUA_PUSHED = 0,
    SB_LUA_QUEUE_CLOSED = 1, /* the queue was closed: the node is the caller's again */
    SB_LUA_QUEUE_FULL = 2,   /* `limit` counted deliveries wait already */
} sb_lua_push;

/* 0, or an errno (the lock could not be made). */
int sb_lua_queue_init(sb_lua_queue *q);
/* After sb_lua_queue_close, when no thread can push any more. */
void sb_lua_queue_destroy(sb_lua_queue *q);

/* Any thread. Appends a delivery; with limit > 0 it counts against it. */
sb_lua_push sb_lua_queue_push(sb_lua_queue *q, sb_lua_node *node, size_t limit);
/* Any thread. Adds a release; 0 when the queue is closed (the node is the caller's). */
int sb_lua_queue_release(sb_lua_queue *q, sb_lua_node *node);

/* The owning thread. The deliveries waiting now: how many one batch may run. */
size_t sb_lua_queue_length(sb_lua_queue *q);
/* The owning thread. The first delivery, or NULL. */
sb_lua_node *sb_lua_queue_pop(sb_lua_queue *q);
/* The owning thread. Every release, or NULL: one atomic load when none wait. */
sb_lua_node *sb_lua_queue_take_releases_slow(sb_lua_queue *q);
static inline sb_lua_node *sb_lua_queue_take_releases(sb_lua_queue *q) {
    if (__atomic_load_n(&q->releases, __ATOMIC_ACQUIRE) == NULL) return NULL;
    return sb_lua_queue_take_releases_slow(q);
}
/* The owning thread, after a batch: the descriptor tells the truth again (see above). */
void sb_lua_queue_rearm(sb_lua_queue *q);
/* Any thread. The descriptor, made on first use (readable at once if work
 * waits); -1 with errno. */
int sb_lua_queue_fd(sb_lua_queue *q);
/* The owning thread. Refuses every push from now on, closes the descriptor,
 * and hands back what waited: the deliveries, in order, and in *releases the
 * releases. */
sb_lua_node *sb_lua_queue_close(sb_lua_queue *q, sb_lua_node **releases);

#endif
