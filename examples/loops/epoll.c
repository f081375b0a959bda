/* A raw epoll loop in edge-triggered mode (EPOLLET, as mio, Go's netpoller
 * and nginx watch descriptors): woken only when the queue's descriptor is
 * written anew. Each wake-up dispatches at most two answers and leaves the
 * rest for the next turn; the dispatch writes the descriptor again while
 * answers wait, which is the new edge that brings the loop back, so no
 * answer is left behind (switchboard.h, "Event loops").
 *
 *   cc epoll.c $(pkg-config --cflags --libs switchboard) -o epoll && ./epoll
 *
 * scripts/check-loops.sh builds and runs it (from a folder holding
 * module_a.so); it exits 1 if an answer is missing or ran elsewhere. */
#define _POSIX_C_SOURCE 200809L
#include <switchboard.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <unistd.h>

static pthread_t loop_thread;
static int answered, failures;

static void downloaded(void *userdata, sb_status status, sb_value *file) {
    (void)userdata;
    if (status != SB_OK || !pthread_equal(pthread_self(), loop_thread)) failures++;
    answered++;
    sb_value_release(file);
}

int main(void) {
    sb_mediator *m = sb_mediator_shared();
    if (sb_plugin_load(m, "./module_a.so") != SB_OK) {
        fprintf(stderr, "%s\n", sb_error_message());
        return 1;
    }
    loop_thread = pthread_self();
    sb_queue *queue;
    int fd;
    sb_queue_new(&queue);
    sb_queue_fd(queue, &fd);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event watch = {.events = EPOLLIN | EPOLLET};
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &watch);

    sb_call_options options = SB_CALL_OPTIONS_INIT;
    options.queue = queue;
    sb_value *params = sb_dict_new();
    sb_dict_set_new(params, "url", sb_string("https://example.com/"));
    sb_dict_set_new(params, "ms", sb_int(5)); /* all ten end together: one edge */
    for (int i = 0; i < 10; i++) sb_action_perform_async(m, "Net", "download", params, &options, downloaded, NULL);
    sb_value_release(params);

    struct epoll_event event;
    while (sb_queue_pending(queue) > 0 && epoll_wait(ep, &event, 1, 2000) == 1) {
        sb_queue_dispatch(queue, 2, NULL); /* at most two a turn */
    }
    printf("%d answers, at most 2 a turn of an edge-triggered loop, none left behind\n", answered);
    close(ep);
    sb_queue_free(queue);
    return answered == 10 && failures == 0 ? 0 : 1;
}
