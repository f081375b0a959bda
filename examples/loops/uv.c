/* A libuv host: the answers of its asynchronous calls reach the loop's own
 * thread through a delivery queue (switchboard.h, "Event loops"), which the
 * loop watches like any other descriptor. Net.download (module_a.so)
 * answers later, from a thread of its own; every `done` below runs on the
 * loop's thread, between the loop's other events, and the loop ends when
 * the last call has answered.
 *
 *   cc uv.c $(pkg-config --cflags --libs switchboard libuv) -o uv && ./uv
 *
 * scripts/check-loops.sh builds and runs it (from a folder holding
 * module_a.so); it exits 1 if a `done` ran anywhere else. */
#define _POSIX_C_SOURCE 200809L /* uv.h, under -std=c99 */
#include <switchboard.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <uv.h>

static sb_queue *queue;
static pthread_t loop_thread;
static int failures;

/* The loop's side: when the queue's descriptor is readable, run what came. */
static void on_answers(uv_poll_t *watch, int status, int events) {
    (void)status;
    (void)events;
    sb_queue_dispatch(queue, 64, NULL);
    if (sb_queue_pending(queue) == 0) uv_close((uv_handle_t *)watch, NULL); /* uv_run ends */
}

static void downloaded(void *userdata, sb_status status, sb_value *file) {
    (void)userdata;
    if (!pthread_equal(pthread_self(), loop_thread)) failures++;
    if (status != SB_OK) {
        printf("failed: %s\n", sb_error_message());
        failures++;
        return;
    }
    int64_t bytes = 0;
    sb_value_get_int(sb_dict_get(file, "bytes"), &bytes);
    printf("%s: %lld bytes, on the loop's thread\n", sb_value_get_string(sb_dict_get(file, "url"), NULL),
           (long long)bytes);
    sb_value_release(file);
}

static void download(sb_mediator *m, const char *url, int64_t ms) {
    sb_call_options options = SB_CALL_OPTIONS_INIT;
    options.queue = queue; /* `done` comes through the queue */
    sb_value *params = sb_dict_new();
    sb_dict_set_new(params, "url", sb_string(url));
    sb_dict_set_new(params, "ms", sb_int(ms));
    sb_action_perform_async(m, "Net", "download", params, &options, downloaded, NULL);
    sb_value_release(params);
}

int main(void) {
    sb_mediator *m = sb_mediator_shared();
    if (sb_plugin_load(m, "./module_a.so") != SB_OK) {
        fprintf(stderr, "%s\n", sb_error_message());
        return 1;
    }
    loop_thread = pthread_self();
    uv_loop_t *loop = uv_default_loop();
    int fd;
    uv_poll_t watch;
    sb_queue_new(&queue); /* on the loop's thread: the queue is its */
    sb_queue_fd(queue, &fd);
    uv_poll_init(loop, &watch, fd);
    uv_poll_start(&watch, UV_READABLE, on_answers);

    download(m, "https://example.com/slow", 60);
    download(m, "https://example.com/fast", 10);
    download(m, "https://example.com/medium", 30);
    uv_run(loop, UV_RUN_DEFAULT);

    sb_queue_free(queue);
    uv_loop_close(loop);
    return failures == 0 ? 0 : 1;
}
