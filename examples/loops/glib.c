/* A GLib host: the answers of its asynchronous calls reach the main loop's
 * thread through a delivery queue (switchboard.h, "Event loops"), watched
 * with g_unix_fd_add like any descriptor. Net.download (module_a.so)
 * answers later, from a thread of its own; every `done` below runs on the
 * main loop's thread, and the loop quits when the last call has answered.
 *
 *   cc glib.c $(pkg-config --cflags --libs switchboard glib-2.0) -o glib && ./glib
 *
 * scripts/check-loops.sh builds and runs it (from a folder holding
 * module_a.so); it exits 1 if a `done` ran anywhere else. */
#include <switchboard.h>
#include <glib-unix.h>
#include <glib.h>
#include <stdint.h>
#include <stdio.h>

static sb_queue *queue;
static GMainLoop *loop;
static GThread *loop_thread;
static int failures;

/* The loop's side: when the queue's descriptor is readable, run what came. */
static gboolean on_answers(gint fd, GIOCondition condition, gpointer userdata) {
    (void)fd;
    (void)condition;
    (void)userdata;
    sb_queue_dispatch(queue, 64, NULL);
    if (sb_queue_pending(queue) > 0) return G_SOURCE_CONTINUE;
    g_main_loop_quit(loop);
    return G_SOURCE_REMOVE;
}

static void downloaded(void *userdata, sb_status status, sb_value *file) {
    (void)userdata;
    if (g_thread_self() != loop_thread) failures++;
    if (status != SB_OK) {
        printf("failed: %s\n", sb_error_message());
        failures++;
        return;
    }
    int64_t bytes = 0;
    sb_value_get_int(sb_dict_get(file, "bytes"), &bytes);
    printf("%s: %lld bytes, on the main loop's thread\n", sb_value_get_string(sb_dict_get(file, "url"), NULL),
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
    loop_thread = g_thread_self();
    loop = g_main_loop_new(NULL, FALSE);
    int fd;
    sb_queue_new(&queue); /* on the main loop's thread: the queue is its */
    sb_queue_fd(queue, &fd);
    g_unix_fd_add(fd, G_IO_IN, on_answers, NULL);

    download(m, "https://example.com/slow", 60);
    download(m, "https://example.com/fast", 10);
    download(m, "https://example.com/medium", 30);
    g_main_loop_run(loop);

    sb_queue_free(queue);
    g_main_loop_unref(loop);
    return failures == 0 ? 0 : 1;
}
