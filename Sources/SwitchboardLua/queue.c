/* A delivery queue with a descriptor: see queue.h for what it promises. */
#include "queue.h"

#include <errno.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

int sb_lua_queue_init(sb_lua_queue *q) {
    q->head = q->tail = NULL;
    q->length = q->counted = 0;
    q->releases = NULL;
    q->closed = 0;
    q->fd = -1;
    q->fd_pid = 0;
    q->armed = 0;
    return pthread_mutex_init(&q->lock, NULL);
}

void sb_lua_queue_destroy(sb_lua_queue *q) {
    pthread_mutex_destroy(&q->lock);
}

/* (lock) Only the process that made the eventfd uses it: in a fork's child
 * the number may name another file by now. */
static int fd_usable(const sb_lua_queue *q) {
    return q->fd >= 0 && q->fd_pid == getpid();
}

/* (lock) Makes the descriptor readable, and an edge for edge-triggered
 * watchers. Nonblocking; the counter is full only at 2^64-2 writes. */
static void signal_fd(sb_lua_queue *q) {
    if (!fd_usable(q)) return;
    uint64_t one = 1;
    ssize_t ignored = write(q->fd, &one, sizeof one);
    (void)ignored;
    q->armed = 1;
}

/* (lock) Work waits: readable, if it is not already. */
static void arm(sb_lua_queue *q) {
    if (!q->armed) signal_fd(q);
}

static int pending(const sb_lua_queue *q) {
    return q->head != NULL || q->releases != NULL;
}

sb_lua_push sb_lua_queue_push(sb_lua_queue *q, sb_lua_node *node, size_t limit) {
    node->next = NULL;
    node->counted = limit > 0;
    pthread_mutex_lock(&q->lock);
    if (q->closed || (limit > 0 && q->counted >= limit)) {
        sb_lua_push refused = q->closed ? SB_LUA_QUEUE_CLOSED : SB_LUA_QUEUE_FULL;
        pthread_mutex_unlock(&q->lock);
        return refused;
    }
    if (q->tail != NULL) q->tail->next = node;
    else q->head = node;
    q->tail = node;
    q->length++;
    q->counted += node->counted;
    arm(q);
    pthread_mutex_unlock(&q->lock);
    return SB_LUA_PUSHED;
}

int sb_lua_queue_release(sb_lua_queue *q, sb_lua_node *node) {
    pthread_mutex_lock(&q->lock);
    if (q->closed) {
        pthread_mutex_unlock(&q->lock);
        return 0;
    }
    node->next = q->releases;
    __atomic_store_n(&q->releases, node, __ATOMIC_RELEASE);
    arm(q);
    pthread_mutex_unlock(&q->lock);
    return 1;
}

size_t sb_lua_queue_length(sb_lua_queue *q) {
    pthread_mutex_lock(&q->lock);
    size_t length = q->length;
    pthread_mutex_unlock(&q->lock);
    return length;
}

sb_lua_node *sb_lua_queue_pop(sb_lua_queue *q) {
    pthread_mutex_lock(&q->lock);
    sb_lua_node *node = q->head;
    if (node != NULL) {
        q->head = node->next;
        if (q->head == NULL) q->tail = NULL;
        q->length--;
        q->counted -= node->counted;
    }
    pthread_mutex_unlock(&q->lock);
    return node;
}

sb_lua_node *sb_lua_queue_take_releases_slow(sb_lua_queue *q) {
    pthread_mutex_lock(&q->lock);
    sb_lua_node *releases = q->releases;
    __atomic_store_n(&q->releases, NULL, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&q->lock);
    return releases;
}

void sb_lua_queue_rearm(sb_lua_queue *q) {
    pthread_mutex_lock(&q->lock);
    if (pending(q)) {
        signal_fd(q); /* again, even if armed: a new edge */
    } else if (q->armed) {
        if (fd_usable(q)) {
            uint64_t count;
            ssize_t ignored = read(q->fd, &count, sizeof count);
            (void)ignored;
        }
        q->armed = 0;
    }
    pthread_mutex_unlock(&q->lock);
}

int sb_lua_queue_fd(sb_lua_queue *q) {
    pthread_mutex_lock(&q->lock);
    if (q->closed) {
        pthread_mutex_unlock(&q->lock);
        errno = EBADF;
        return -1;
    }
    if (!fd_usable(q)) {
        /* A fork's child: the inherited number is left alone (the parent's
         * eventfd, or by now another file); this process gets its own. */
        int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (fd < 0) {
            int error = errno;
            pthread_mutex_unlock(&q->lock);
            errno = error;
            return -1;
        }
        q->fd = fd;
        q->fd_pid = getpid();
        q->armed = 0;
        if (pending(q)) signal_fd(q);
    }
    int fd = q->fd;
    pthread_mutex_unlock(&q->lock);
    return fd;
}

sb_lua_node *sb_lua_queue_close(sb_lua_queue *q, sb_lua_node **releases) {
    pthread_mutex_lock(&q->lock);
    q->closed = 1;
    if (fd_usable(q)) close(q->fd);
    q->fd = -1;
    q->armed = 0;
    sb_lua_node *deliveries = q->head;
    q->head = q->tail = NULL;
    q->length = q->counted = 0;
    *releases = q->releases;
    __atomic_store_n(&q->releases, NULL, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&q->lock);
    return deliveries;
}
