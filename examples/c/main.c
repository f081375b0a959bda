/*
 * The CTMediator demo in C: the caller knows only names and switchboard.h.
 * Module A is a plugin (module_a.so) loaded at run time; nothing here links
 * it or includes anything of it. generated/sb_a.h holds typed wrappers made
 * from module A's contracts by `switchboard gen` (scripts/generate.sh).
 * Steps 11 and 12 are the remote call: an app:// URL opened with a
 * completion, and a native* action that the URL entry refuses. Step 13 is
 * an action that answers later, called without waiting for it.
 *
 *   cc main.c $(pkg-config --cflags --libs switchboard) -o demo
 *   ./demo ./module_a.so
 */
#define _POSIX_C_SOURCE 200809L
#include <switchboard.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "generated/sb_a.h"

static sb_mediator *m;

/* Prints `value` as JSON after an arrow. */
static void show(const sb_value *value) {
    char *json = sb_json_encode(value);
    printf("   -> %s\n", json ? json : "(null)");
    sb_memory_free(json);
}

/* Prints what a call gave: the result, or the status and the message.
 * Releases the result. (`out` is a pointer so that it is read after the
 * call in the same argument list has set it.) */
static void shown(sb_status s, sb_value **out) {
    if (s == SB_OK) {
        show(*out);
    } else {
        printf("   -> error %s: %s\n", sb_status_string(s), sb_error_message());
    }
    sb_value_release(*out);
    *out = NULL;
}

/* Performs by name and prints; takes over `params`. */
static void perform(const char *target, const char *action, sb_value *params, unsigned flags) {
    sb_value *out = NULL;
    shown(sb_action_perform(m, target, action, params, flags, &out), &out);
    sb_value_release(params);
}

static sb_value *params1(const char *key, sb_value *value) {
    sb_value *d = sb_dict_new();
    sb_dict_set_new(d, key, value);
    return d;
}

/* The caller's side of the alert: what each button does. */
static sb_status on_alert(void *userdata, const sb_value *info, sb_value **out) {
    char *json = sb_json_encode(info);
    printf("   [caller] %s called with %s\n", (const char *)userdata, json);
    sb_memory_free(json);
    *out = sb_string((const char *)userdata);
    return SB_OK;
}

/* The buttons' names, passed as userdata (arrays, so this compiles as C++ too). */
static char confirm_action[] = "confirmAction", cancel_action[] = "cancelAction";

/* Shows the alert; the wrapper takes over the two callbacks. */
static void show_alert(const char *answer) {
    sb_value *out = NULL;
    sb_status s = sb_a_show_alert(m, "Delete the draft?", answer,
                                  sb_callback_new(on_alert, confirm_action, NULL),
                                  sb_callback_new(on_alert, cancel_action, NULL), 0, &out);
    shown(s, &out);
}

/* The app's own NoTargetAction (CTMediator's Target_NoTargetAction). */
static sb_status no_target_response(void *u, const sb_value *params, sb_value **out) {
    char reason[256];
    (void)u;
    snprintf(reason, sizeof reason, "nothing answers %s/%s",
             sb_value_get_string(sb_dict_get(params, "target"), NULL),
             sb_value_get_string(sb_dict_get(params, "action"), NULL));
    *out = sb_dict_new();
    sb_dict_set_new(*out, "page", sb_string("NotFoundViewController"));
    sb_dict_set_new(*out, "reason", sb_string(reason));
    return SB_OK;
}

/* The caller's completion for a URL call: it receives {"result": value},
 * or {"error": message, "code": status name} when the call failed. */
static sb_status on_completion(void *u, const sb_value *info, sb_value **out) {
    char *json = sb_json_encode(info);
    (void)u;
    (void)out;
    printf("   [caller] completion got %s\n", json ? json : "(null)");
    sb_memory_free(json);
    return SB_OK;
}

/* Opens `url` as a remote call (CTMediator's performActionWithUrl:
 * completion:) and prints what the completion and the call gave. */
static void open_remote(const char *url) {
    sb_value *completion = sb_callback_new(on_completion, NULL, NULL);
    sb_url_options options = SB_URL_OPTIONS_INIT;
    options.completion = completion;
    sb_value *out = NULL;
    printf("   open %s\n", url);
    shown(sb_url_open(m, url, &options, &out), &out);
    sb_value_release(completion);
}

/* cell then configCell, both on the cached instance of A. */
static void table_cell(const char *title) {
    sb_value *c = NULL, *out = NULL;
    sb_status s = sb_a_cell(m, "DemoCell", SB_CACHE_TARGET, &c);
    if (s == SB_OK) s = sb_a_config_cell(m, c, title, SB_CACHE_TARGET, &out); /* takes c */
    shown(s, &out);
}

/* An action that answers later (a network fetch, say): it takes its
 * call's completion, hands it to a worker thread and returns SB_PENDING. */
static void *fetch_in_background(void *arg) {
    sb_completion *c = (sb_completion *)arg;
    struct timespec pause = {0, 20 * 1000000L};
    nanosleep(&pause, NULL); /* the work */
    sb_completion_succeed(*c, sb_string("<html>the news</html>"));
    free(c);
    return NULL;
}

static sb_status fetch(void *u, const sb_value *params, sb_value **out) {
    pthread_t worker;
    sb_completion *c = (sb_completion *)malloc(sizeof *c);
    (void)u;
    (void)params;
    (void)out;
    if (c == NULL) return SB_ENOMEM;
    *c = sb_completion_take();
    if (pthread_create(&worker, NULL, fetch_in_background, c) != 0) {
        sb_completion_fail(*c, SB_EACTION, "cannot start the fetch");
        free(c);
        return SB_PENDING;
    }
    pthread_detach(worker);
    return SB_PENDING;
}

/* The caller's side: done runs once, on the worker's thread; main waits
 * for it here only so that the demo prints in order. */
static pthread_mutex_t fetched_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fetched_cv = PTHREAD_COND_INITIALIZER;
static int fetched;

static void on_fetched(void *u, sb_status s, sb_value *result) {
    (void)u;
    if (s == SB_OK) {
        printf("   [caller] done got the answer, on the worker's thread\n");
        show(result);
    } else {
        printf("   [caller] done: error %s: %s\n", sb_status_string(s), sb_error_message());
    }
    sb_value_release(result);
    pthread_mutex_lock(&fetched_mu);
    fetched = 1;
    pthread_cond_signal(&fetched_cv);
    pthread_mutex_unlock(&fetched_mu);
}

static void fetch_without_waiting(void) {
    sb_status s = sb_action_perform_async(m, "Net", "fetch", NULL, NULL, on_fetched, NULL);
    printf("   sb_action_perform_async returned %s: the caller goes on\n", s == SB_PENDING ? "SB_PENDING" : sb_status_string(s));
    pthread_mutex_lock(&fetched_mu);
    while (!fetched) pthread_cond_wait(&fetched_cv, &fetched_mu);
    pthread_mutex_unlock(&fetched_mu);
}

int main(int argc, char **argv) {
    const char *plugin = argc > 1 ? argv[1] : "./module_a.so";
    if (sb_version_number() != SB_VERSION_NUMBER) {
        fprintf(stderr, "header %s, library %s\n", SB_VERSION_STRING, sb_version());
        return 1;
    }
    m = sb_mediator_shared();
    if (sb_plugin_load(m, plugin) != SB_OK) {
        fprintf(stderr, "demo: %s\n", sb_error_message());
        return 1;
    }
    sb_action_register(m, "NoTargetAction", "response", no_target_response, NULL, NULL);
    printf("switchboard %s, module A from %s\n", sb_version(), plugin);

    sb_value *out = NULL;
    puts("\n== 1. present detail page (nativeFetchDetailViewController)");
    shown(sb_a_native_fetch_detail_view_controller(m, sb_string("present from the demo"), 0, &out), &out);
    puts("\n== 2. push detail page (same action, another key)");
    shown(sb_a_native_fetch_detail_view_controller(m, sb_string("pushed from the demo"), 0, &out), &out);
    puts("\n== 3. present image (nativePresentImage)");
    shown(sb_a_native_present_image(m, "switchboard.png", 0, &out), &out);
    puts("\n== 4. present image with no image: the nil-image fallback (nativeNoImage)");
    shown(sb_a_native_no_image(m, 0, &out), &out);
    puts("\n== 5. show alert; the user taps Confirm (confirmAction callback)");
    show_alert("confirm");
    puts("\n== 6. show alert; the user taps Cancel (cancelAction callback)");
    show_alert("cancel");
    puts("\n== 7. table cells from a cached target (cell + configCell), then release it");
    table_cell("Row 1");
    table_cell("Row 2");
    table_cell("Row 3");
    sb_target_evict(m, "A");
    puts("   released the cached target A; the next cell comes from a new instance:");
    table_cell("Row 1");
    sb_target_evict(m, "A");
    puts("\n== 8. a target that does not exist: the NoTargetAction response");
    perform("B", "nativeFetchDetailViewController", params1("key", sb_string("x")), 0);
    puts("\n== 9. an action A does not have, as a prepared route: a clear error, no fallback");
    sb_route *r = NULL;
    sb_status s = sb_route_prepare(m, "A", "doesNotExist", 0, &r);
    printf("   -> error %s: %s\n", sb_status_string(s), sb_error_message());
    sb_route_free(r);
    puts("\n== 10. what the typed wrappers rule out: a param of the wrong type, caught by A's contract");
    perform("A", "nativePresentImage", params1("image", sb_int(42)), 0);
    puts("\n== 11. a remote call: a URL opened with a completion (app:// reaches targets by name)");
    open_remote("app://A/cell?identifier=LinkCell");
    puts("\n== 12. a native action from a URL: refused before any code of A runs");
    open_remote("app://A/nativeFetchDetailViewController?key=from%20a%20link");
    puts("\n== 13. an action that answers later, called without waiting (sb_action_perform_async)");
    sb_action_register(m, "Net", "fetch", fetch, NULL, NULL);
    fetch_without_waiting();
    return 0;
}
