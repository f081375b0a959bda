/*
 * The CTMediator demo in C: the caller knows only names and switchboard.h.
 * Module A is a plugin (module_a.so) loaded at run time; nothing here links
 * it or includes anything of it. generated/sb_a.h holds typed wrappers made
 * from module A's contracts by `switchboard gen` (scripts/generate.sh).
 * The last two steps are the remote call: an app:// URL opened with a
 * completion, and a native* action that the URL entry refuses.
 *
 *   cc main.c $(pkg-config --cflags --libs switchboard) -o demo
 *   ./demo ./module_a.so
 */
#include <switchboard.h>
#include <stdio.h>
#include <stdlib.h>

#include "generated/sb_a.h"

static sb_mediator *m;

/* Prints `value` as JSON after an arrow. */
static void show(const sb_value *value) {
    char *json = sb_to_json(value);
    printf("   -> %s\n", json ? json : "(null)");
    sb_free(json);
}

/* Prints what a call gave: the result, or the status and the message.
 * Releases the result. (`out` is a pointer so that it is read after the
 * call in the same argument list has set it.) */
static void shown(sb_status s, sb_value **out) {
    if (s == SB_OK) {
        show(*out);
    } else {
        printf("   -> error %s: %s\n", sb_status_string(s), sb_last_error());
    }
    sb_release(*out);
    *out = NULL;
}

/* Performs by name and prints; takes over `params`. */
static void perform(const char *target, const char *action, sb_value *params, unsigned flags) {
    sb_value *out = NULL;
    shown(sb_perform(m, target, action, params, flags, &out), &out);
    sb_release(params);
}

static sb_value *params1(const char *key, sb_value *value) {
    sb_value *d = sb_dict_new();
    sb_dict_set_new(d, key, value);
    return d;
}

/* The caller's side of the alert: what each button does. */
static sb_status on_alert(void *userdata, const sb_value *info, sb_value **out) {
    char *json = sb_to_json(info);
    printf("   [caller] %s called with %s\n", (const char *)userdata, json);
    sb_free(json);
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
             sb_get_string(sb_dict_get(params, "target"), NULL),
             sb_get_string(sb_dict_get(params, "action"), NULL));
    *out = sb_dict_new();
    sb_dict_set_new(*out, "page", sb_string("NotFoundViewController"));
    sb_dict_set_new(*out, "reason", sb_string(reason));
    return SB_OK;
}

/* The caller's completion for a URL call: it receives {"result": value},
 * or {"error": message, "code": status name} when the call failed. */
static sb_status on_completion(void *u, const sb_value *info, sb_value **out) {
    char *json = sb_to_json(info);
    (void)u;
    (void)out;
    printf("   [caller] completion got %s\n", json ? json : "(null)");
    sb_free(json);
    return SB_OK;
}

/* Opens `url` as a remote call (CTMediator's performActionWithUrl:
 * completion:) and prints what the completion and the call gave. */
static void open_remote(const char *url) {
    sb_value *completion = sb_callback_new(on_completion, NULL, NULL);
    sb_value *out = NULL;
    printf("   open %s\n", url);
    shown(sb_open_url(m, url, completion, &out), &out);
    sb_release(completion);
}

/* cell then configCell, both on the cached instance of A. */
static void table_cell(const char *title) {
    sb_value *c = NULL, *out = NULL;
    sb_status s = sb_a_cell(m, "DemoCell", SB_CACHE_TARGET, &c);
    if (s == SB_OK) s = sb_a_config_cell(m, c, title, SB_CACHE_TARGET, &out); /* takes c */
    shown(s, &out);
}

int main(int argc, char **argv) {
    const char *plugin = argc > 1 ? argv[1] : "./module_a.so";
    if (sb_version_number() != SB_VERSION_NUMBER) {
        fprintf(stderr, "header %s, library %s\n", SB_VERSION_STRING, sb_version());
        return 1;
    }
    m = sb_mediator_shared();
    if (sb_load_plugin(m, plugin) != SB_OK) {
        fprintf(stderr, "demo: %s\n", sb_last_error());
        return 1;
    }
    sb_register_action(m, "NoTargetAction", "response", no_target_response, NULL, NULL);
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
    sb_release_cached_target(m, "A");
    puts("   released the cached target A; the next cell comes from a new instance:");
    table_cell("Row 1");
    sb_release_cached_target(m, "A");
    puts("\n== 8. a target that does not exist: the NoTargetAction response");
    perform("B", "nativeFetchDetailViewController", params1("key", sb_string("x")), 0);
    puts("\n== 9. an action A does not have, as a prepared route: a clear error, no fallback");
    sb_route *r = NULL;
    sb_status s = sb_route_prepare(m, "A", "doesNotExist", 0, &r);
    printf("   -> error %s: %s\n", sb_status_string(s), sb_last_error());
    sb_route_free(r);
    puts("\n== 10. what the typed wrappers rule out: a param of the wrong type, caught by A's contract");
    perform("A", "nativePresentImage", params1("image", sb_int(42)), 0);
    puts("\n== 11. a remote call: a URL opened with a completion (app:// reaches targets by name)");
    open_remote("app://A/cell?identifier=LinkCell");
    puts("\n== 12. a native action from a URL: refused before any code of A runs");
    open_remote("app://A/nativeFetchDetailViewController?key=from%20a%20link");
    return 0;
}
