/*
 * Module A, as a plugin: CTMediator's demo target (Target_A), in C.
 *
 * A plugin links nothing of Switchboard. It exports one table per target,
 * `const sb_target_def Target_<Name>`, and the process that loads it
 * provides the sb_ functions. Build:
 *
 *   cc -shared -fPIC module_a.c $(pkg-config --cflags switchboard) -o module_a.so
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <switchboard.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The target's state, made by create() for each instance. A cached instance
 * keeps it between calls; that is what the cell example shows. */
struct module_a {
    int instance;   /* which instance this is */
    int cells_made;
};

static void *a_create(void) {
    static int instances;
    struct module_a *a = (struct module_a *)calloc(1, sizeof *a);
    if (a != NULL) a->instance = ++instances;
    return a;
}

static void a_destroy(void *state) { free(state); }

/* The page a detail view controller would show, from params.key. */
static sb_status detail(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    const sb_value *key = sb_dict_get(params, "key");
    sb_value *page = sb_dict_new();
    sb_dict_set_new(page, "page", sb_string("DemoModuleADetailViewController"));
    sb_dict_set_new(page, "title", key ? sb_value_retain((sb_value *)key) : sb_string("(no key)"));
    *out = page;
    return SB_OK;
}

static sb_status present_image(void *state, const sb_value *params, sb_value **out) {
    const sb_value *image = sb_dict_get(params, "image");
    (void)state;
    if (image == NULL) {
        sb_error_set("nativePresentImage needs params.image (use nativeNoImage without one)");
        return SB_EINVAL;
    }
    *out = sb_dict_new();
    sb_dict_set_new(*out, "page", sb_string("ImageViewController"));
    sb_dict_set_new(*out, "image", sb_value_retain((sb_value *)image));
    return SB_OK;
}

/* CTMediator's nil-image case: a placeholder page. */
static sb_status no_image(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)params;
    *out = sb_dict_new();
    sb_dict_set_new(*out, "page", sb_string("ImageViewController"));
    sb_dict_set_new(*out, "image", sb_string("placeholder.png"));
    sb_dict_set_new(*out, "note", sb_string("no image was given"));
    return SB_OK;
}

/* Shows an alert and reports the tap through the caller's callbacks. With no
 * user here, params.answer ("confirm" or "cancel") says which button. */
static sb_status show_alert(void *state, const sb_value *params, sb_value **out) {
    const char *message = sb_value_get_string(sb_dict_get(params, "message"), NULL);
    const char *answer = sb_value_get_string(sb_dict_get(params, "answer"), NULL);
    const char *tapped = answer != NULL && strcmp(answer, "cancel") == 0 ? "cancelAction" : "confirmAction";
    (void)state;
    printf("   [A] alert: \"%s\"  [Confirm] [Cancel]\n", message ? message : "");
    const sb_value *callback = sb_dict_get(params, tapped);
    if (callback == NULL) {
        *out = sb_string("no callback for the tapped button");
        return SB_OK;
    }
    sb_value *info = sb_dict_new();
    sb_dict_set_new(info, "alertAction", sb_string(tapped));
    sb_dict_set_new(info, "message", sb_string(message ? message : ""));
    sb_status s = sb_callback_call(callback, info, out);
    sb_value_release(info);
    return s;
}

static sb_status cell(void *state, const sb_value *params, sb_value **out) {
    struct module_a *a = (struct module_a *)state;
    const sb_value *identifier = sb_dict_get(params, "identifier");
    char name[32];
    snprintf(name, sizeof name, "cell %d", ++a->cells_made);
    *out = sb_dict_new();
    sb_dict_set_new(*out, "cell", sb_string(name));
    sb_dict_set_new(*out, "identifier", identifier ? sb_value_retain((sb_value *)identifier) : sb_string("Cell"));
    sb_dict_set_new(*out, "targetInstance", sb_int(a->instance));
    return SB_OK;
}

static sb_status config_cell(void *state, const sb_value *params, sb_value **out) {
    const sb_value *c = sb_dict_get(params, "cell"), *title = sb_dict_get(params, "title");
    (void)state;
    *out = sb_dict_new();
    sb_dict_set_new(*out, "cell", c ? sb_value_retain((sb_value *)c) : sb_null());
    sb_dict_set_new(*out, "title", title ? sb_value_retain((sb_value *)title) : sb_string(""));
    sb_dict_set_new(*out, "configured", sb_bool(1));
    return SB_OK;
}

/* A payment that always fails, as when the payment service is down: the
 * reroute scenario sends it to a fallback at run time. */
static sb_status charge(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)params;
    (void)out;
    sb_error_set("payment service down");
    return SB_EACTION;
}

/* A download that answers later, as a network request would: the action
 * takes its call's completion, hands the work to a thread of its own and
 * returns SB_PENDING; the thread completes the call when the "download" is
 * done, params.ms milliseconds later (default 50). */
struct download {
    sb_completion completion;
    char *url;
    long ms;
};

static void *download_thread(void *arg) {
    struct download *d = (struct download *)arg;
    struct timespec wait = {d->ms / 1000, (d->ms % 1000) * 1000000L};
    nanosleep(&wait, NULL);
    sb_value *file = sb_dict_new();
    sb_dict_set_new(file, "url", sb_string(d->url));
    sb_dict_set_new(file, "bytes", sb_int((int64_t)strlen(d->url) * 1000));
    (void)sb_completion_succeed(d->completion, file); /* refused if the caller stopped waiting */
    free(d->url);
    free(d);
    return NULL;
}

static sb_status download(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)out;
    const char *url = sb_value_get_string(sb_dict_get(params, "url"), NULL);
    int64_t ms = 50;
    if (sb_dict_get(params, "ms") != NULL && (sb_value_get_int(sb_dict_get(params, "ms"), &ms) != SB_OK || ms < 0 || ms > 60000)) {
        sb_error_set("ms must be an int from 0 to 60000");
        return SB_EPARAMS;
    }
    struct download *d = (struct download *)calloc(1, sizeof *d);
    if (d == NULL || (d->url = (char *)malloc(strlen(url) + 1)) == NULL) {
        free(d);
        return SB_ENOMEM;
    }
    strcpy(d->url, url);
    d->ms = (long)ms;
    d->completion = sb_completion_take();
    pthread_t thread;
    if (pthread_create(&thread, NULL, download_thread, d) != 0) {
        free(d->url);
        free(d);
        sb_error_set("no thread for the download");
        return SB_EACTION;
    }
    pthread_detach(thread);
    return SB_PENDING;
}

static const sb_action_def a_actions[] = {
    {"nativeFetchDetailViewController", detail},
    {"nativePresentImage", present_image},
    {"nativeNoImage", no_image},
    {"showAlert", show_alert},
    {"cell", cell},
    {"configCell", config_cell},
    {"charge", charge},
    {NULL, NULL},
};

/* What the actions take and give: checked before each call, listed by
 * `switchboard routes`. */
static const sb_contract_def a_contracts[] = {
    {"nativeFetchDetailViewController", "key: any? -- the page's title\n-> dict"},
    {"nativePresentImage", "image: string -- the image to show\n-> dict"},
    {"nativeNoImage", "-> dict"},
    {"showAlert", "message: string -- the alert's text\n"
                  "answer: string? -- the button the user taps: confirm (the default) or cancel\n"
                  "confirmAction: callback? -- called when Confirm is tapped\n"
                  "cancelAction: callback? -- called when Cancel is tapped"},
    {"cell", "identifier: string? -- the cell's reuse identifier\n-> dict"},
    {"configCell", "cell: any?, title: string?\n-> dict"},
    {"charge", "amount: int? -- in cents\n-> dict"},
    {NULL, NULL},
};

const sb_target_def Target_A = {SB_TARGET_DEF_VERSION, a_create, a_destroy, a_actions, a_contracts};

/* Net: the download above, a target of its own (CTMediator's demo has no
 * network module; this one shows an action that answers later). */
static const sb_action_def net_actions[] = {
    {"download", download},
    {NULL, NULL},
};

const sb_target_def Target_Net = {SB_TARGET_DEF_VERSION, NULL, NULL, net_actions, NULL};
