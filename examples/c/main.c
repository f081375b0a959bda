/*
 * The CTMediator demo in C: the caller knows only names and switchboard.h.
 * Module A is a plugin (module_a.so) loaded at run time; nothing here links
 * it or includes anything of it.
 *
 *   cc main.c $(pkg-config --cflags --libs switchboard) -o demo
 *   ./demo ./module_a.so
 */
#include <switchboard.h>
#include <stdio.h>
#include <stdlib.h>

static sb_mediator *m;

/* Prints `value` as JSON after an arrow. */
static void show(const sb_value *value) {
    char *json = sb_to_json(value);
    printf("   -> %s\n", json ? json : "(null)");
    sb_free(json);
}

/* Performs and prints; on failure prints the status and the message. */
static void perform(const char *target, const char *action, sb_value *params, unsigned flags) {
    sb_value *out = NULL;
    sb_status s = sb_perform(m, target, action, params, flags, &out);
    if (s == SB_OK) {
        show(out);
    } else {
        printf("   -> error %s: %s\n", sb_status_string(s), sb_last_error());
    }
    sb_release(out);
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
    *out = sb_string(userdata);
    return SB_OK;
}

static sb_value *alert_params(const char *answer) {
    sb_value *p = sb_dict_new();
    sb_dict_set_new(p, "message", sb_string("Delete the draft?"));
    sb_dict_set_new(p, "answer", sb_string(answer));
    sb_dict_set_new(p, "confirmAction", sb_callback_new(on_alert, "confirmAction", NULL));
    sb_dict_set_new(p, "cancelAction", sb_callback_new(on_alert, "cancelAction", NULL));
    return p;
}

/* The app's own NoTargetAction (CTMediator's Target_NoTargetAction). */
static sb_status no_target_response(void *u, const sb_value *params, sb_value **out) {
    char reason[256];
    (void)u;
    snprintf(reason, sizeof reason, "nothing answers %s/%s",
             sb_get_string(sb_dict_get(params, "targetString"), NULL),
             sb_get_string(sb_dict_get(params, "selectorString"), NULL));
    *out = sb_dict_new();
    sb_dict_set_new(*out, "page", sb_string("NotFoundViewController"));
    sb_dict_set_new(*out, "reason", sb_string(reason));
    return SB_OK;
}

static sb_value *cell_params(const char *title) {
    sb_value *p = params1("identifier", sb_string("DemoCell"));
    sb_dict_set_new(p, "title", sb_string(title));
    return p;
}

/* cell then configCell, both on the cached instance of A. */
static void table_cell(const char *title) {
    sb_value *c = NULL, *params = cell_params(title);
    if (sb_perform(m, "A", "cell", params, SB_CACHE_TARGET, &c) == SB_OK) {
        sb_dict_set_new(params, "cell", c);
        perform("A", "configCell", params, SB_CACHE_TARGET);
    } else {
        printf("   -> error: %s\n", sb_last_error());
        sb_release(params);
    }
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

    puts("\n== 1. present detail page (nativeFetchDetailViewController)");
    perform("A", "nativeFetchDetailViewController", params1("key", sb_string("present from the demo")), 0);
    puts("\n== 2. push detail page (same action, another key)");
    perform("A", "nativeFetchDetailViewController", params1("key", sb_string("pushed from the demo")), 0);
    puts("\n== 3. present image (nativePresentImage)");
    perform("A", "nativePresentImage", params1("image", sb_string("switchboard.png")), 0);
    puts("\n== 4. present image with no image: the nil-image fallback (nativeNoImage)");
    perform("A", "nativeNoImage", NULL, 0);
    puts("\n== 5. show alert; the user taps Confirm (confirmAction callback)");
    perform("A", "showAlert", alert_params("confirm"), 0);
    puts("\n== 6. show alert; the user taps Cancel (cancelAction callback)");
    perform("A", "showAlert", alert_params("cancel"), 0);
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
    return 0;
}
