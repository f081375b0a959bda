/* C targets for the Lua specs. Links nothing of Switchboard. */
#define _POSIX_C_SOURCE 200809L
#include <switchboard.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Echo.value: returns params.value (or null); Echo.params: returns params. */
static sb_status echo_value(void *s, const sb_value *params, sb_value **out) {
    sb_value *v = sb_dict_get(params, "value");
    (void)s;
    *out = v ? sb_value_retain(v) : sb_null();
    return SB_OK;
}

static sb_status echo_params(void *s, const sb_value *params, sb_value **out) {
    (void)s;
    *out = sb_value_retain((sb_value *)params);
    return SB_OK;
}

/* Echo.types: the sb_type of each params entry, as a dict of names. */
static sb_status echo_types(void *s, const sb_value *params, sb_value **out) {
    static const char *names[] = {"null", "bool", "int", "double", "string", "bytes",
                                  "array", "dict", "callback", "pointer"};
    const char *key;
    sb_value *v;
    (void)s;
    *out = sb_dict_new();
    for (size_t i = 0; i < sb_value_count(params); i++) {
        sb_dict_at(params, i, &key, &v);
        sb_dict_set_new(*out, key, sb_string(names[sb_value_type(v)]));
    }
    return SB_OK;
}

/* Echo.keys: the keys of params.value (a dict), in its order, as an array
 * (what a C action sees of a table's order). */
static sb_status echo_keys(void *s, const sb_value *params, sb_value **out) {
    const sb_value *dict = sb_dict_get(params, "value");
    const char *key;
    (void)s;
    *out = sb_array_new();
    for (size_t i = 0; i < sb_value_count(dict); i++) {
        sb_dict_at(dict, i, &key, NULL);
        sb_array_append_new(*out, sb_string(key));
    }
    return SB_OK;
}

/* Echo.ordered: a dict whose keys are not in byte order (zeta, alpha, mid),
 * with a nested one (inner: {y, x}). */
static sb_status echo_ordered(void *s, const sb_value *params, sb_value **out) {
    sb_value *inner = sb_dict_new();
    (void)s;
    (void)params;
    sb_dict_set_new(inner, "y", sb_int(1));
    sb_dict_set_new(inner, "x", sb_int(2));
    *out = sb_dict_new();
    sb_dict_set_new(*out, "zeta", sb_int(1));
    sb_dict_set_new(*out, "alpha", sb_int(2));
    sb_dict_set_new(*out, "mid", sb_int(3));
    sb_dict_set_new(*out, "inner", inner);
    return SB_OK;
}

/* Echo.call: calls params.cb with params.arg and returns what it returns. */
static sb_status echo_call(void *s, const sb_value *params, sb_value **out) {
    (void)s;
    return sb_callback_call(sb_dict_get(params, "cb"), sb_dict_get(params, "arg"), out);
}

/* Echo.adder: returns a C callback adding params.n to its int argument. */
static sb_status add_n(void *userdata, const sb_value *args, sb_value **out) {
    int64_t x = 0;
    if (sb_value_get_int(args, &x) != SB_OK) {
        sb_error_set("adder: needs an int");
        return SB_ETYPE;
    }
    *out = sb_int(x + *(int64_t *)userdata);
    return SB_OK;
}

static sb_status echo_adder(void *s, const sb_value *params, sb_value **out) {
    int64_t *n = malloc(sizeof *n);
    (void)s;
    if (n == NULL) return SB_ENOMEM;
    *n = 0;
    sb_value_get_int(sb_dict_get(params, "n"), n);
    *out = sb_callback_new(add_n, n, free);
    return *out ? SB_OK : SB_ENOMEM;
}

static sb_status echo_fail(void *s, const sb_value *params, sb_value **out) {
    (void)s;
    (void)params;
    (void)out;
    sb_error_set("Echo.fail: refused");
    return SB_EREJECTED;
}

/* Echo.pointer: a host pointer; Echo.isPointer: whether params.value is it. */
static int host_object;

static sb_status echo_pointer(void *s, const sb_value *params, sb_value **out) {
    (void)s;
    (void)params;
    *out = sb_pointer(&host_object, NULL);
    return SB_OK;
}

static sb_status echo_is_pointer(void *s, const sb_value *params, sb_value **out) {
    void *p = NULL;
    (void)s;
    *out = sb_bool(sb_value_get_pointer(sb_dict_get(params, "value"), &p) == SB_OK && p == &host_object);
    return SB_OK;
}

static const sb_action_def echo_actions[] = {
    {"value", echo_value},     {"params", echo_params},        {"types", echo_types},
    {"call", echo_call},       {"adder", echo_adder},          {"fail", echo_fail},
    {"pointer", echo_pointer}, {"isPointer", echo_is_pointer}, {"keys", echo_keys},
    {"ordered", echo_ordered}, {NULL, NULL},
};
const sb_target_def Target_Echo = {SB_TARGET_DEF_VERSION, NULL, NULL, echo_actions, NULL};

/* Bridge.perform: performs params.target / params.action with params.params
 * on the shared mediator, from C: a plugin reaching Lua targets. */
static sb_status bridge_perform(void *s, const sb_value *params, sb_value **out) {
    (void)s;
    const char *target = sb_value_get_string(sb_dict_get(params, "target"), NULL);
    const char *action = sb_value_get_string(sb_dict_get(params, "action"), NULL);
    return sb_action_perform(sb_mediator_shared(), target, action, sb_dict_get(params, "params"), 0, out);
}

static const sb_action_def bridge_actions[] = {{"perform", bridge_perform}, {NULL, NULL}};
const sb_target_def Target_Bridge = {SB_TARGET_DEF_VERSION, NULL, NULL, bridge_actions, NULL};

/* Threads.callLater: calls params.cb(params.arg) from a new pthread; join
 * waits for it and returns the status that thread got, by name. */
static pthread_t worker;
static int worker_running;
static sb_status worker_status;

static void *call_from_thread(void *arg) {
    sb_value *params = arg;
    sb_value *out = NULL;
    worker_status = sb_callback_call(sb_dict_get(params, "cb"), sb_dict_get(params, "arg"), &out);
    sb_value_release(out);
    sb_value_release(params);
    return NULL;
}

static sb_status threads_call_later(void *s, const sb_value *params, sb_value **out) {
    (void)s;
    if (worker_running) pthread_join(worker, NULL);
    worker_running = pthread_create(&worker, NULL, call_from_thread, sb_value_retain((sb_value *)params)) == 0;
    *out = sb_bool(worker_running);
    return SB_OK;
}

/* Threads.performLater: performs params.target / params.action on the shared
 * mediator from a new pthread; join returns the status it got. */
static void *perform_from_thread(void *arg) {
    sb_value *params = arg;
    sb_value *out = NULL;
    worker_status = sb_action_perform(sb_mediator_shared(), sb_value_get_string(sb_dict_get(params, "target"), NULL),
                               sb_value_get_string(sb_dict_get(params, "action"), NULL), NULL, 0, &out);
    sb_value_release(out);
    sb_value_release(params);
    return NULL;
}

static sb_status threads_perform_later(void *s, const sb_value *params, sb_value **out) {
    (void)s;
    if (worker_running) pthread_join(worker, NULL);
    worker_running = pthread_create(&worker, NULL, perform_from_thread, sb_value_retain((sb_value *)params)) == 0;
    *out = sb_bool(worker_running);
    return SB_OK;
}

/* Threads.performAsync: sb_action_perform_async of params.target /
 * params.action with params {n = params.n} from a new pthread; `done` runs
 * where the call ends (the Lua state's thread, for a Lua action) and keeps
 * what it got for Threads.asyncResult: {status =, result =}, or null before. */
static pthread_mutex_t async_lock = PTHREAD_MUTEX_INITIALIZER;
static sb_value *async_result;

static void async_done(void *userdata, sb_status status, sb_value *result) {
    (void)userdata;
    static const char *names[] = {"OK", "EINVAL", "ENOTARGET", "ENOACTION", "EACTION", "ETYPE", "EREJECTED",
                                  "EBADURL", "ENOMEM", "EQUEUED"};
    sb_value *d = sb_dict_new();
    sb_dict_set_new(d, "status", sb_string((unsigned)status < 10 ? names[status] : "?"));
    if (result != NULL) sb_dict_set_new(d, "result", result);
    pthread_mutex_lock(&async_lock);
    sb_value_release(async_result);
    async_result = d;
    pthread_mutex_unlock(&async_lock);
}

static void *perform_async_from_thread(void *arg) {
    sb_value *params = arg;
    sb_value *call = sb_dict_new();
    sb_dict_set(call, "n", sb_dict_get(params, "n"));
    sb_status status = sb_action_perform_async(sb_mediator_shared(),
                                               sb_value_get_string(sb_dict_get(params, "target"), NULL),
                                               sb_value_get_string(sb_dict_get(params, "action"), NULL), call, NULL,
                                               async_done, NULL);
    if (status != SB_OK && status != SB_PENDING) async_done(NULL, status, NULL);
    sb_value_release(call);
    sb_value_release(params);
    return NULL;
}

static sb_status threads_perform_async(void *s, const sb_value *params, sb_value **out) {
    (void)s;
    pthread_t thread;
    pthread_mutex_lock(&async_lock);
    sb_value_release(async_result);
    async_result = NULL;
    pthread_mutex_unlock(&async_lock);
    int started = pthread_create(&thread, NULL, perform_async_from_thread, sb_value_retain((sb_value *)params)) == 0;
    if (started) pthread_detach(thread);
    *out = sb_bool(started);
    return SB_OK;
}

static sb_status threads_async_result(void *s, const sb_value *params, sb_value **out) {
    (void)s;
    (void)params;
    pthread_mutex_lock(&async_lock);
    *out = async_result != NULL ? sb_value_retain(async_result) : sb_null();
    pthread_mutex_unlock(&async_lock);
    return SB_OK;
}

static sb_status threads_join(void *s, const sb_value *params, sb_value **out) {
    static const char *names[] = {"OK", "EINVAL", "ENOTARGET", "ENOACTION", "EACTION",
                                  "ETYPE", "EREJECTED", "EBADURL", "ENOMEM", "EQUEUED"};
    (void)s;
    (void)params;
    if (!worker_running) return SB_EINVAL;
    pthread_join(worker, NULL);
    worker_running = 0;
    *out = sb_string((unsigned)worker_status < 10 ? names[worker_status] : "?");
    return SB_OK;
}

static const sb_action_def threads_actions[] = {
    {"callLater", threads_call_later}, {"performLater", threads_perform_later}, {"join", threads_join},
    {"performAsync", threads_perform_async}, {"asyncResult", threads_async_result}, {NULL, NULL}};
const sb_target_def Target_Threads = {SB_TARGET_DEF_VERSION, NULL, NULL, threads_actions, NULL};

/* Later.after: answers params.value after params.ms milliseconds, from a
 * thread of its own (an asynchronous action: sb_completion_take, SB_PENDING).
 * Later.join waits for that thread and returns what its completion got. */
struct later {
    sb_completion c;
    long ms;
    sb_value *value;
    sb_status got;
};
static pthread_t later_thread;
static int later_running;
static struct later later_work;

static void *complete_later(void *arg) {
    struct later *l = arg;
    struct timespec t = {l->ms / 1000, (l->ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
    l->got = sb_completion_succeed(l->c, l->value);
    return NULL;
}

static sb_status later_after(void *s, const sb_value *params, sb_value **out) {
    (void)s, (void)out;
    int64_t ms = 0;
    if (sb_value_get_int(sb_dict_get(params, "ms"), &ms) != SB_OK || ms < 0) return SB_EINVAL;
    if (later_running) pthread_join(later_thread, NULL);
    later_work.c = sb_completion_take();
    later_work.ms = (long)ms;
    later_work.value = sb_value_retain(sb_dict_get(params, "value"));
    if (later_work.value == NULL) later_work.value = sb_null();
    later_running = pthread_create(&later_thread, NULL, complete_later, &later_work) == 0;
    return later_running ? SB_PENDING : SB_EACTION;
}

static sb_status later_join(void *s, const sb_value *params, sb_value **out) {
    (void)s, (void)params;
    if (!later_running) return SB_EINVAL;
    pthread_join(later_thread, NULL);
    later_running = 0;
    *out = sb_string(sb_status_string(later_work.got));
    return SB_OK;
}

/* Later.soon: as after, from a detached thread of its own for each call, so
 * that many may wait at once; with params.fail (a string) it fails with
 * that message (and params.code's status, default SB_EACTION). Later.hold
 * takes the completion and keeps it; Later.finish completes the oldest kept
 * one with params.value from this thread. */
struct soon {
    sb_completion c;
    long ms;
    sb_value *value;
    char *fail;
};

static void *complete_soon(void *arg) {
    struct soon *w = arg;
    struct timespec t = {w->ms / 1000, (w->ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
    if (w->fail != NULL) {
        sb_value_release(w->value);
        (void)sb_completion_fail(w->c, SB_EACTION, w->fail);
    } else {
        (void)sb_completion_succeed(w->c, w->value);
    }
    free(w->fail);
    free(w);
    return NULL;
}

static sb_status later_soon(void *s, const sb_value *params, sb_value **out) {
    (void)s, (void)out;
    int64_t ms = 0;
    if (sb_value_get_int(sb_dict_get(params, "ms"), &ms) != SB_OK || ms < 0) return SB_EINVAL;
    struct soon *w = calloc(1, sizeof *w);
    if (w == NULL) return SB_ENOMEM;
    const char *fail = sb_value_get_string(sb_dict_get(params, "fail"), NULL);
    if (fail != NULL) {
        w->fail = malloc(strlen(fail) + 1);
        if (w->fail != NULL) strcpy(w->fail, fail);
    }
    w->c = sb_completion_take();
    w->ms = (long)ms;
    w->value = sb_value_retain(sb_dict_get(params, "value"));
    if (w->value == NULL) w->value = sb_null();
    pthread_attr_t attr;
    pthread_t thread;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int started = pthread_create(&thread, &attr, complete_soon, w) == 0;
    pthread_attr_destroy(&attr);
    if (started) return SB_PENDING;
    sb_value_release(w->value);
    free(w->fail);
    free(w);
    return SB_EACTION;
}

static sb_completion held[64];
static size_t held_count;

static sb_status later_hold(void *s, const sb_value *params, sb_value **out) {
    (void)s, (void)params, (void)out;
    if (held_count == sizeof held / sizeof held[0]) return SB_EREJECTED;
    held[held_count++] = sb_completion_take();
    return SB_PENDING;
}

static sb_status later_finish(void *s, const sb_value *params, sb_value **out) {
    (void)s;
    if (held_count == 0) return SB_EINVAL;
    sb_completion c = held[0];
    memmove(held, held + 1, --held_count * sizeof held[0]);
    sb_value *value = sb_value_retain(sb_dict_get(params, "value"));
    *out = sb_string(sb_status_string(sb_completion_succeed(c, value)));
    return SB_OK;
}

static const sb_action_def later_actions[] = {{"after", later_after}, {"join", later_join}, {"soon", later_soon},
                                              {"hold", later_hold}, {"finish", later_finish}, {NULL, NULL}};
const sb_target_def Target_Later = {SB_TARGET_DEF_VERSION, NULL, NULL, later_actions, NULL};

/* Fd.wait: whether params.fd becomes readable within params.ms milliseconds
 * (poll(2)): how a test waits on sb.fd() without an event loop library. */
static sb_status fd_wait(void *s, const sb_value *params, sb_value **out) {
    (void)s;
    int64_t fd = -1, ms = 0;
    if (sb_value_get_int(sb_dict_get(params, "fd"), &fd) != SB_OK || fd < 0 || fd > 0x7fffffff) return SB_EINVAL;
    if (sb_value_get_int(sb_dict_get(params, "ms"), &ms) != SB_OK || ms < 0 || ms > 60000) return SB_EINVAL;
    struct pollfd p = {(int)fd, POLLIN, 0};
    int n = poll(&p, 1, (int)ms);
    *out = sb_bool(n > 0 && (p.revents & POLLIN));
    return SB_OK;
}

static const sb_action_def fd_actions[] = {{"wait", fd_wait}, {NULL, NULL}};
const sb_target_def Target_Fd = {SB_TARGET_DEF_VERSION, NULL, NULL, fd_actions, NULL};
