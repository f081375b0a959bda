/*
 * Delivery queues (switchboard.h, "Event loops"): the `done` of calls that
 * answer later, and work posted from any thread, run on the one thread that
 * owns the queue, woken through an eventfd that its loop watches.
 *
 * A delivery is made before its call starts (sb__delivery_new), so ending
 * the call never allocates and is never refused; while the call runs it is
 * "flying" (on the queue's list of flying deliveries, which sb_queue_free
 * cancels), then "waiting" (on the FIFO list that sb_queue_dispatch runs).
 * Every change of a delivery's state happens under the queue's lock (the
 * futex lock of lock.h: a round trip takes it four times), so
 * each `done` runs exactly once: in a dispatch, in sb_queue_free, or at
 * once on the owner thread (sb__delivery_claim).
 *
 * The descriptor is readable while work waits, for level- and
 * edge-triggered watchers alike: work queued onto an idle queue writes it
 * (one write per wake-up, not one per item); after a dispatch it is emptied
 * if nothing is left, and written again otherwise, which makes the new edge
 * an edge-triggered watcher needs for work queued behind the batch. Pushing
 * and taking touch it only on those transitions, so no call pays a system
 * call for work queued by others, and every operation is O(1) but
 * sb_queue_free, which is O(what it ends).
 */
#include "switchboard_internal.h"
#include "switchboard_sys.h"
#include "lock.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

/* A delivery's states. sb_queue_free cancels what is flying: while it runs
 * the `done` it is CANCELLED, then CANCEL_RAN; an answer that comes while
 * it is CANCELLED marks it ENDED instead of freeing it, and the free frees
 * it; one that comes later frees it. */
enum { FLYING = 0, WAITING = 1, CANCELLED = 2, CANCEL_RAN = 3, ENDED = 4 };

struct sb__delivery {
    sb__delivery *prev, *next; /* (lock) on the flying list, then the waiting list */
    sb_queue *queue;           /* one reference */
    int state;                 /* (lock) */
    sb_done_fn done;           /* a call's, or NULL for a post */
    void (*fn)(void *);        /* a post's */
    void *userdata;
    sb_status status;          /* the answer, once WAITING */
    sb_value *result;
    char *message;             /* a failure's message (malloc), or NULL */
    void *call;                /* the call: given up if the queue is freed first; let go after its done */
    void (*let_go)(void *call, int give_up);
    sb__kept kept;             /* what a call without one kept: let go after its done */
};

struct sb_queue {
    sb__lock lock;
    pthread_t owner;           /* the thread that made it: the only one that dispatches */
    sb__delivery *head, *tail; /* (lock) waiting, first in first out */
    size_t waiting;            /* (lock) */
    size_t posted;             /* (lock) of the waiting ones, posts (bounded) */
    sb__delivery flying;       /* (lock) the flying list's head (a ring) */
    size_t in_flight;          /* (lock) */
    long refs;                 /* (lock) its host's, and one per delivery not yet finished */
    int closed;                /* (lock) sb_queue_free ran */
    int fd;                    /* (lock) the eventfd, -1 until asked for */
    pid_t fd_pid;              /* (lock) the process that made it (a fork's child makes its own) */
    dev_t fd_dev;              /* (lock) what fstat says it is: a number the host closed */
    ino_t fd_ino;              /* and reused for a file of its own is left alone */
    int armed;                 /* (lock) written since it was last emptied */
    int lent;                  /* (lock) a face's (a Lua state's): sb_queue_free leaves it */
    sb__delivery *spare;       /* (lock) run deliveries kept for the next calls, through `next` */
    size_t spares;             /* (lock) how many: at most SPARES */
};

/* Deliveries a queue keeps after they ran, so that a loop's steady traffic
 * allocates none: each call takes one as it starts, and its dispatch gives
 * it back under the lock it takes anyway. A burst beyond this is freed. */
enum { SPARES = 32 };

/* Dispatches running on this thread: a call that ends at once inside a
 * `done` is queued rather than run there, so callbacks never nest. */
static __thread int dispatching __attribute__((tls_model("initial-exec")));

static const char gone[] = "the call's queue was freed before the call ended (sb_queue_free)";

/* -------------------------------------------------------------- the fd */

/* (lock) Only the process that made the eventfd uses it: in a fork's child
 * the number may name another file by now. Nor after the host closed it
 * (its error, but not one to pay for with its data): if the number names
 * something else now, a file, a socket or a pipe it opened since, it is
 * forgotten, never written, read or closed. (An eventfd shares its inode
 * with every other one, so another eventfd passes: at worst a spurious
 * wake-up.) */
static int fd_usable(sb_queue *q) {
    if (q->fd < 0 || q->fd_pid != getpid()) return 0;
    struct stat now;
    if (fstat(q->fd, &now) == 0 && now.st_dev == q->fd_dev && now.st_ino == q->fd_ino) return 1;
    q->fd = -1;
    q->armed = 0;
    return 0;
}

/* (lock) Makes the descriptor readable, and an edge for edge-triggered
 * watchers. Nonblocking; the counter is full only at 2^64-2 writes. */
static void signal_fd(sb_queue *q) {
    if (!fd_usable(q)) return;
    uint64_t one = 1;
    ssize_t ignored = write(q->fd, &one, sizeof one);
    (void)ignored;
    q->armed = 1;
}

/* (lock) After a dispatch: readable again if work is left, else emptied. */
static void rearm(sb_queue *q) {
    if (q->head != NULL) {
        signal_fd(q); /* again, even if armed: a new edge */
    } else if (q->armed) {
        if (fd_usable(q)) {
            uint64_t count;
            ssize_t ignored = read(q->fd, &count, sizeof count);
            (void)ignored;
        }
        q->armed = 0;
    }
}

/* ------------------------------------------------------------ the lists */

static void unlink_delivery(sb__delivery *d) {
    d->prev->next = d->next;
    d->next->prev = d->prev;
    d->prev = d->next = NULL;
}

/* (lock) Appends to the waiting list; the first one wakes the loop. */
static void push_waiting(sb_queue *q, sb__delivery *d) {
    d->state = WAITING;
    d->next = NULL;
    if (q->tail != NULL) q->tail->next = d;
    else q->head = d;
    q->tail = d;
    q->waiting++;
    if (d->done == NULL) q->posted++;
    if (!q->armed) signal_fd(q);
}

/* (lock) The first waiting delivery, or NULL. */
static sb__delivery *pop_waiting(sb_queue *q) {
    sb__delivery *d = q->head;
    if (d == NULL) return NULL;
    q->head = d->next;
    if (q->head == NULL) q->tail = NULL;
    q->waiting--;
    if (d->done == NULL) q->posted--;
    return d;
}

/* (lock) Drops one reference and unlocks; the last frees the queue (closed
 * by then). */
static void queue_release_unlock(sb_queue *q) {
    long refs = --q->refs;
    sb__lock_give(&q->lock);
    if (refs > 0) return;
    while (q->spare != NULL) {
        sb__delivery *d = q->spare;
        q->spare = d->next;
        free(d);
    }
    sb__lock_destroy(&q->lock);
    free(q);
}

/* Drops one reference; the last frees the queue (closed by then). */
static void queue_release(sb_queue *q) {
    sb__lock_take(&q->lock);
    queue_release_unlock(q);
}

/* Frees a delivery outside a dispatch, and drops its reference to the queue. */
static void delivery_free(sb__delivery *d) {
    sb_queue *q = d->queue;
    free(d->message);
    free(d);
    queue_release(q);
}

/* (lock) The call of a cancelled delivery ended: 1 when the caller frees
 * it now, 0 when sb_queue_free still uses it (and frees it). */
static int ended_cancelled(sb__delivery *d) {
    if (d->state == CANCEL_RAN) return 1;
    d->state = ENDED;
    return 0;
}

/* Lets go of what a call handed over without its completion kept (its
 * delivery's `kept`), once its done ran. */
static void let_go_kept(sb__delivery *d) {
    if (d->kept.let_go != NULL) d->kept.let_go(d->kept.owner, d->kept.instance);
}

/* Runs one delivery on this thread and frees its message; the caller frees
 * or keeps the delivery, and drops its reference to the queue. */
static void run(sb__delivery *d) {
    if (d->done == NULL) {
        d->fn(d->userdata);
    } else {
        if (d->status != SB_OK) {
            const char *message = d->message != NULL ? d->message : "the call failed (its message was lost: out of memory)";
            sb__error_set(message, strlen(message));
        }
        sb_value *result = d->result;
        d->result = NULL;
        d->done(d->userdata, d->status, result);
        /* After done: the call's completion, and what the call kept, go
         * here, outside any completion. */
        if (d->call != NULL) d->let_go(d->call, 0);
        let_go_kept(d);
    }
    free(d->message);
    d->message = NULL;
}

/* (lock) Keeps a delivery that ran for a later call, if the queue is open
 * and keeps fewer than SPARES; else returns it, for the caller to free
 * outside the lock. */
static sb__delivery *keep_spare(sb_queue *q, sb__delivery *d) {
    if (q->closed || q->spares >= SPARES) return d;
    d->next = q->spare;
    q->spare = d;
    q->spares++;
    return NULL;
}

/* ---------------------------------------------------- the public functions */

sb_status sb_queue_new(sb_queue **out) {
    if (out == NULL) {
        sb_error_set("sb_queue_new: NULL out");
        return SB_EINVAL;
    }
    *out = NULL;
    sb_queue *q = calloc(1, sizeof *q);
    if (q == NULL) {
        sb_error_set("sb_queue_new: out of memory");
        return SB_ENOMEM;
    }
    sb__lock_init(&q->lock);
    q->owner = pthread_self();
    q->flying.next = q->flying.prev = &q->flying;
    q->refs = 1;
    q->fd = -1;
    *out = q;
    return SB_OK;
}

sb_status sb_queue_fd(sb_queue *q, int *out) {
    if (out != NULL) *out = -1;
    if (q == NULL || out == NULL) {
        sb_error_set("sb_queue_fd: NULL queue or out");
        return SB_EINVAL;
    }
    sb__lock_take(&q->lock);
    if (!fd_usable(q)) {
        /* A fork's child: the inherited number is left alone (the parent's
         * eventfd, or by now another file); this process gets its own. So
         * does a host that closed the one it had. */
        int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        struct stat made = {0};
        if (fd >= 0 && fstat(fd, &made) != 0) {
            close(fd);
            fd = -1;
        }
        if (fd < 0) {
            int error = errno;
            sb__lock_give(&q->lock);
            sb_error_set("sb_queue_fd: no descriptor could be made (eventfd: %s)", strerror(error));
            return SB_ENOMEM;
        }
        q->fd = fd;
        q->fd_pid = getpid();
        q->fd_dev = made.st_dev;
        q->fd_ino = made.st_ino;
        q->armed = 0;
        if (q->head != NULL) signal_fd(q);
    }
    *out = q->fd;
    sb__lock_give(&q->lock);
    return SB_OK;
}

sb_status sb_queue_dispatch(sb_queue *q, size_t max, size_t *out) {
    if (out != NULL) *out = 0;
    if (q == NULL) {
        sb_error_set("sb_queue_dispatch: NULL queue");
        return SB_EINVAL;
    }
    if (!pthread_equal(pthread_self(), q->owner)) {
        sb_error_set("sb_queue_dispatch: the queue belongs to the thread that made it; it ran nothing here");
        return SB_EREJECTED;
    }
    sb__lock_take(&q->lock);
    /* Only what waits now: work that queues more work cannot keep this
     * dispatch going, and the loop gets back to its other sources. */
    size_t left = q->waiting < max ? q->waiting : max;
    q->refs++; /* a `done` may free the queue: it stays until this returns */
    size_t ran = 0;
    dispatching++;
    while (left > 0) {
        sb__delivery *d = pop_waiting(q);
        if (d == NULL) break; /* taken by a dispatch a `done` made */
        left--;
        sb__lock_give(&q->lock);
        run(d);
        ran++;
        sb__lock_take(&q->lock);
        q->refs--; /* the delivery's: never the last, this dispatch holds one */
        d = keep_spare(q, d);
        if (d != NULL) {
            sb__lock_give(&q->lock);
            free(d);
            sb__lock_take(&q->lock);
        }
    }
    dispatching--;
    if (!q->closed) rearm(q);
    queue_release_unlock(q);
    if (out != NULL) *out = ran;
    return SB_OK;
}

sb_status sb_queue_post(sb_queue *q, void (*fn)(void *userdata), void *userdata) {
    if (q == NULL || fn == NULL) {
        sb_error_set("sb_queue_post: NULL queue or function");
        return SB_EINVAL;
    }
    sb__delivery *d = calloc(1, sizeof *d);
    if (d == NULL) {
        sb_error_set("sb_queue_post: out of memory");
        return SB_ENOMEM;
    }
    d->fn = fn;
    d->userdata = userdata;
    d->queue = q;
    sb__lock_take(&q->lock);
    if (q->closed || q->posted >= SB_QUEUE_MAX_POSTED) {
        int closed = q->closed;
        sb__lock_give(&q->lock);
        free(d);
        if (closed) {
            sb_error_set("sb_queue_post: the queue is freed");
        } else {
            sb_error_set("sb_queue_post: the queue is full (SB_QUEUE_MAX_POSTED = %d posts wait for its dispatch)",
                         SB_QUEUE_MAX_POSTED);
        }
        return SB_EREJECTED;
    }
    q->refs++;
    push_waiting(q, d);
    sb__lock_give(&q->lock);
    return SB_OK;
}

size_t sb_queue_pending(const sb_queue *q) {
    if (q == NULL) return 0;
    sb_queue *queue = (sb_queue *)q; /* the lock; nothing visible changes */
    sb__lock_take(&queue->lock);
    size_t pending = queue->waiting + queue->in_flight;
    sb__lock_give(&queue->lock);
    return pending;
}

void sb_queue_free(sb_queue *q) {
    if (q == NULL) return;
    sb__lock_take(&q->lock);
    if (q->lent) { /* sb_lua_queue's: lua_close frees it, and uses it till then */
        sb__lock_give(&q->lock);
        sb_error_set("sb_queue_free: the queue belongs to a Lua state (sb_lua_queue); lua_close frees it");
        return;
    }
    if (q->closed) { /* freed twice: the host's reference went already */
        sb__lock_give(&q->lock);
        return;
    }
    q->closed = 1;
    if (fd_usable(q)) close(q->fd);
    q->fd = -1;
    q->armed = 0;
    /* Cancelled under the lock: an answer that comes now finds its delivery
     * cancelled and is dropped, so each `done` runs once, here. */
    sb__delivery *cancelled = NULL;
    while (q->flying.next != &q->flying) {
        sb__delivery *d = q->flying.next;
        unlink_delivery(d);
        d->state = CANCELLED;
        q->in_flight--;
        d->next = cancelled;
        cancelled = d;
    }
    q->refs++; /* kept while the deliveries run */
    sb__lock_give(&q->lock);
    /* What waited runs now, in order, as a dispatch would have run it. */
    for (;;) {
        sb__lock_take(&q->lock);
        sb__delivery *d = pop_waiting(q);
        sb__lock_give(&q->lock);
        if (d == NULL) break;
        dispatching++;
        run(d);
        dispatching--;
        free(d);
        queue_release(q); /* the delivery's */
    }
    /* What has not ended fails now; its call is given up, and the answer
     * that comes later is dropped (the delivery goes with it). */
    while (cancelled != NULL) {
        sb__delivery *d = cancelled;
        cancelled = d->next;
        void *call = d->call;
        void (*let_go)(void *, int) = d->let_go;
        d->call = NULL;
        sb__error_set(gone, sizeof gone - 1);
        dispatching++;
        d->done(d->userdata, SB_ECANCELED, NULL);
        dispatching--;
        sb__lock_take(&q->lock);
        int ended = d->state == ENDED;
        d->state = CANCEL_RAN;
        sb__lock_give(&q->lock);
        if (ended) {
            let_go_kept(d); /* given with its answer: after its done */
            delivery_free(d);
        }
        if (call != NULL) let_go(call, 1);
    }
    queue_release(q); /* the deliveries' */
    queue_release(q); /* the host's */
}

/* --------------------------------------------------- for the C exports */

void sb__queue_lend(sb_queue *q, int lent) {
    if (q == NULL) return;
    sb__lock_take(&q->lock);
    q->lent = lent != 0;
    sb__lock_give(&q->lock);
}

sb_status sb__delivery_new(sb_queue *q, sb_done_fn done, void *userdata, sb__delivery **out) {
    *out = NULL;
    sb__lock_take(&q->lock);
    sb__delivery *d = q->spare;
    if (d != NULL) {
        q->spare = d->next;
        q->spares--;
    } else {
        /* None kept: made outside the lock. */
        sb__lock_give(&q->lock);
        d = malloc(sizeof *d);
        if (d == NULL) {
            sb_error_set("out of memory making the delivery of a call's done");
            return SB_ENOMEM;
        }
        sb__lock_take(&q->lock);
    }
    if (q->closed) {
        sb__lock_give(&q->lock);
        free(d);
        sb_error_set("sb_call_options.queue is a queue that was freed");
        return SB_EINVAL;
    }
    /* Every field set here or below (a kept one holds the last call's):
     * calloc's clearing costs more than these stores. */
    *d = (sb__delivery){.queue = q, .done = done, .userdata = userdata};
    q->refs++;
    q->in_flight++;
    d->state = FLYING;
    d->next = &q->flying;
    d->prev = q->flying.prev;
    q->flying.prev->next = d;
    q->flying.prev = d;
    sb__lock_give(&q->lock);
    *out = d;
    return SB_OK;
}

int sb__delivery_claim(sb__delivery *d) {
    sb_queue *q = d->queue;
    /* Only on the owner, outside any `done` it runs. */
    if (dispatching || !pthread_equal(pthread_self(), q->owner)) return -1;
    sb__lock_take(&q->lock);
    int flying = d->state == FLYING, free_now = 1;
    if (flying) {
        unlink_delivery(d);
        q->in_flight--;
    } else {
        free_now = ended_cancelled(d); /* sb_queue_free runs (or ran) its done */
    }
    sb__lock_give(&q->lock);
    if (free_now) delivery_free(d);
    return flying;
}

void sb__delivery_watch(sb__delivery *d, void *call, void (*let_go)(void *call, int give_up)) {
    sb_queue *q = d->queue;
    sb__lock_take(&q->lock);
    int cancelled = d->state != FLYING;
    if (!cancelled) {
        d->call = call;
        d->let_go = let_go;
    }
    sb__lock_give(&q->lock);
    if (cancelled) let_go(call, 1); /* freed meanwhile, by another thread */
}

int sb__delivery_end(sb__delivery *d, sb_status status, sb_value *result, const char *message,
                     const sb__kept *kept) {
    sb_queue *q = d->queue;
    char *copy = NULL;
    if (status != SB_OK) {
        /* NULL (out of memory): run() says the message was lost. */
        size_t length = message != NULL ? strlen(message) : 0;
        copy = malloc(length + 1);
        if (copy != NULL) {
            if (length > 0) memcpy(copy, message, length);
            copy[length] = '\0';
        }
    }
    sb__lock_take(&q->lock);
    if (d->state != FLYING) { /* cancelled: its done runs (or ran) in sb_queue_free */
        int free_now = ended_cancelled(d);
        /* Its done still to run there: what the call kept waits for it. */
        int keeps = !free_now && kept != NULL;
        if (keeps) d->kept = *kept;
        sb__lock_give(&q->lock);
        sb_value_release(result);
        free(copy);
        if (free_now) delivery_free(d);
        return keeps ? -1 : 0;
    }
    unlink_delivery(d);
    q->in_flight--;
    d->status = status;
    d->result = result;
    d->message = copy;
    if (kept != NULL) d->kept = *kept;
    push_waiting(q, d); /* its call, if watched, is let go after its done runs */
    sb__lock_give(&q->lock);
    return 1;
}

int sb__delivery_cancelled(void *delivery) {
    sb__delivery *d = delivery;
    sb_queue *q = d->queue;
    sb__lock_take(&q->lock);
    int cancelled = d->state != FLYING && d->state != WAITING;
    sb__lock_give(&q->lock);
    return cancelled;
}
