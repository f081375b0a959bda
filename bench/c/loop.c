/*
 * The round trip of an asynchronous call through an event loop (issue 40):
 * the loop's thread starts a call whose work a worker thread does; the
 * worker ends it; the loop, woken by a descriptor, runs `done` on its own
 * thread. One call at a time, so callgrind counts both threads' work for
 * exactly one round trip per iteration.
 *
 *   loop_baseline   the same hand-off written by hand: a locked list and an
 *                   eventfd each way (what a host wrote before queues)
 *   loop_queue      sb_action_perform_async of an action that hands its
 *                   completion to the worker, with sb_call_options.queue;
 *                   the worker calls sb_completion_succeed; the loop polls
 *                   the queue's descriptor and dispatches it
 *
 * Both use the same worker (a locked list and an eventfd it blocks on) and
 * the same wake-ups: the loop writes the worker's eventfd after the call is
 * made (so the answer always comes after the action returned), then waits
 * in poll(2) on its descriptor.
 */
#define _POSIX_C_SOURCE 200809L
#include <switchboard.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

typedef struct job {
    struct job *next;
    sb_completion completion; /* loop_queue's, or 0 */
    int64_t n;
    void (*done)(void *userdata, int64_t n); /* loop_baseline's */
    void *userdata;
} job;

/* A locked list and the eventfd that says it is not empty. */
typedef struct channel {
    pthread_mutex_t lock;
    job *head, *tail;
    int fd;
} channel;

static channel to_worker = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, -1};
static channel to_loop = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, -1};
static volatile int64_t loop_sink;

static void wake(channel *c) {
    uint64_t one = 1;
    ssize_t ignored = write(c->fd, &one, sizeof one);
    (void)ignored;
}

/* Appends; the first job on an empty list wakes the other side when `signal`. */
static void put(channel *c, job *j, int signal) {
    j->next = NULL;
    pthread_mutex_lock(&c->lock);
    int was_empty = c->head == NULL;
    if (c->tail != NULL) c->tail->next = j;
    else c->head = j;
    c->tail = j;
    pthread_mutex_unlock(&c->lock);
    if (signal && was_empty) wake(c);
}

static job *take_all(channel *c) {
    pthread_mutex_lock(&c->lock);
    job *all = c->head;
    c->head = c->tail = NULL;
    pthread_mutex_unlock(&c->lock);
    return all;
}

/* The worker: blocks on its eventfd, then does every job it finds. A job
 * with n < 0 ends it. */
static void *worker(void *arg) {
    (void)arg;
    for (;;) {
        uint64_t count;
        ssize_t ignored = read(to_worker.fd, &count, sizeof count);
        (void)ignored;
        for (job *j = take_all(&to_worker), *next; j != NULL; j = next) {
            next = j->next;
            if (j->n < 0) {
                free(j);
                return NULL;
            }
            if (j->completion != 0) {
                sb_completion c = j->completion;
                int64_t n = j->n;
                free(j);
                sb_completion_succeed(c, sb_int(n * 2));
            } else {
                j->n *= 2;
                put(&to_loop, j, 1);
            }
        }
    }
}

static pthread_t worker_thread;

static void start_worker(void) {
    to_worker.fd = eventfd(0, EFD_CLOEXEC);
    to_loop.fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    pthread_create(&worker_thread, NULL, worker, NULL);
}

static void stop_worker(void) {
    job *last = calloc(1, sizeof *last);
    last->n = -1;
    put(&to_worker, last, 0);
    wake(&to_worker);
    pthread_join(worker_thread, NULL);
    close(to_worker.fd);
    close(to_loop.fd);
}

static void wait_readable(int fd) {
    struct pollfd p = {fd, POLLIN, 0};
    (void)poll(&p, 1, -1);
}

/* ------------------------------------------------------------ baseline */

static void baseline_done(void *userdata, int64_t n) {
    (void)userdata;
    loop_sink += n;
}

void bench_loop_baseline(long iterations) {
    start_worker();
    for (long i = 0; i < iterations; i++) {
        job *j = calloc(1, sizeof *j);
        j->n = 21;
        j->done = baseline_done;
        put(&to_worker, j, 0);
        wake(&to_worker);
        wait_readable(to_loop.fd);
        uint64_t count;
        ssize_t ignored = read(to_loop.fd, &count, sizeof count);
        (void)ignored;
        for (job *d = take_all(&to_loop), *next; d != NULL; d = next) {
            next = d->next;
            d->done(d->userdata, d->n);
            free(d);
        }
    }
    stop_worker();
}

/* ------------------------------------------------------- through a queue */

/* Worker.twice: hands its completion and params.n to the worker. */
static sb_status hand_to_worker(void *userdata, const sb_value *params, sb_value **out) {
    (void)userdata;
    (void)out;
    job *j = calloc(1, sizeof *j);
    j->completion = sb_completion_take();
    sb_value_get_int(sb_dict_get(params, "n"), &j->n);
    put(&to_worker, j, 0);
    return SB_PENDING;
}

static void queue_done(void *userdata, sb_status status, sb_value *result) {
    (void)userdata;
    (void)status;
    int64_t n = 0;
    sb_value_get_int(result, &n);
    loop_sink += n;
    sb_value_release(result);
}

void bench_loop_queue(sb_mediator *m, const sb_value *params, long iterations) {
    sb_action_register(m, "Worker", "twice", hand_to_worker, NULL, NULL);
    sb_queue *queue = NULL;
    int fd = -1;
    sb_queue_new(&queue);
    sb_queue_fd(queue, &fd);
    sb_call_options options = SB_CALL_OPTIONS_INIT;
    options.queue = queue;
    start_worker();
    for (long i = 0; i < iterations; i++) {
        sb_action_perform_async(m, "Worker", "twice", params, &options, queue_done, NULL);
        wake(&to_worker);
        wait_readable(fd);
        sb_queue_dispatch(queue, SIZE_MAX, NULL);
    }
    stop_worker();
    sb_queue_free(queue);
}
