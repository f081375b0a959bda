/* A host that used every pthread key before it loaded libswitchboard.so
 * (with dlopen; this program does not link it). The library needs keys for
 * its thread records and its error messages; with none left it finds
 * records by thread instead, and keeps messages in a buffer of each
 * thread's (cut at 511 bytes): calls work, on any number of threads, and
 * failures keep their status and message. It trapped (SIGILL) before. */
#include <dlfcn.h>
#include <pthread.h>

#include "check.h"

static struct {
    sb_mediator *(*mediator_new)(void);
    void (*mediator_free)(sb_mediator *);
    sb_status (*action_register)(sb_mediator *, const char *, const char *, sb_fn, void *, void (*)(void *));
    sb_status (*action_perform)(sb_mediator *, const char *, const char *, const sb_value *, unsigned, sb_value **);
    const char *(*error_message)(void);
    void (*error_set)(const char *, ...);
    sb_value *(*make_int)(int64_t);
    sb_status (*get_int)(const sb_value *, int64_t *);
    void (*release)(sb_value *);
} lib;

#define LOAD(handle, field, name) (memcpy(&lib.field, &(void *){dlsym(handle, name)}, sizeof lib.field), \
                                   dlsym(handle, name) != NULL)

static sb_status answer(void *ud, const sb_value *params, sb_value **out) {
    (void)params;
    *out = lib.make_int((int64_t)(intptr_t)ud);
    return SB_OK;
}

static sb_status fails_at_length(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)params, (void)out;
    char text[2000];
    memset(text, 'x', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    lib.error_set("refused: %s", text);
    return SB_EREJECTED;
}

static sb_mediator *shared_m;
static volatile int churning;

/* Registers and unregisters another action of K while the workers call:
 * each change retires the target's entry, which the collector frees once
 * no call holds it, so a call whose record was taken from it would read
 * freed memory (valgrind and ASan run this program). */
static void *churn(void *arg) {
    (void)arg;
    while (__atomic_load_n(&churning, __ATOMIC_ACQUIRE)) {
        (void)lib.action_register(shared_m, "K", "other", answer, (void *)(intptr_t)8, NULL);
        (void)lib.action_register(shared_m, "K", "other", answer, (void *)(intptr_t)9, NULL);
    }
    return NULL;
}

/* Each thread: calls that work, a failure with its message, then exits
 * (its record must be found again by a later thread). */
#define WORKER_CALLS 200
static void *worker(void *arg) {
    int *good = arg;
    for (int i = 0; i < WORKER_CALLS; i++) {
        sb_value *out = NULL;
        int64_t n = 0;
        if (lib.action_perform(shared_m, "K", "answer", NULL, 0, &out) == SB_OK && lib.get_int(out, &n) == SB_OK
            && n == 7)
            (*good)++;
        lib.release(out);
    }
    sb_value *out = NULL;
    if (lib.action_perform(shared_m, "Nowhere", "x", NULL, 0, &out) == SB_ENOTARGET
        && strstr(lib.error_message(), "Nowhere") != NULL)
        (*good)++;
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s PLUGIN-DIR LIBRARY\n", argv[0]);
        return 2;
    }
    static pthread_key_t keys[2048];
    int count = 0;
    while (count < 2048 && pthread_key_create(&keys[count], NULL) == 0) count++;
    CHECK(count < 2048);

    void *handle = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    CHECK(handle != NULL);
    if (handle == NULL) {
        fprintf(stderr, "%s\n", dlerror());
        return check_report("no_keys");
    }
    int loaded = LOAD(handle, mediator_new, "sb_mediator_new") && LOAD(handle, mediator_free, "sb_mediator_free")
        && LOAD(handle, action_register, "sb_action_register") && LOAD(handle, action_perform, "sb_action_perform")
        && LOAD(handle, error_message, "sb_error_message") && LOAD(handle, error_set, "sb_error_set")
        && LOAD(handle, make_int, "sb_int") && LOAD(handle, get_int, "sb_value_get_int")
        && LOAD(handle, release, "sb_value_release");
    CHECK(loaded);
    if (!loaded) return check_report("no_keys");

    shared_m = lib.mediator_new();
    CHECK(lib.action_register(shared_m, "K", "answer", answer, (void *)(intptr_t)7, NULL) == SB_OK);
    CHECK(lib.action_register(shared_m, "K", "long", fails_at_length, NULL, NULL) == SB_OK);

    sb_value *out = NULL;
    CHECK(lib.action_perform(shared_m, "K", "long", NULL, 0, &out) == SB_EREJECTED);
    const char *message = lib.error_message();
    CHECK(strncmp(message, "refused: xxx", 12) == 0 && strlen(message) == 511);

    /* Threads that exit, 8 at a time: records of exited threads are found
     * and reused (no destructor tells the library they exited). In each
     * round, half the threads get the pthread_t of an exited thread (glibc
     * reuses its memory) and half a new one (a stack size not seen
     * before): a thread must not take an exited one's record for its own
     * by pthread_t while another, new one, seeing the old thread id dead,
     * empties that record under it. */
    enum { ROUNDS = 40, AT_ONCE = 8 };
    static int good[ROUNDS * AT_ONCE];
    pthread_t churner;
    churning = 1;
    pthread_create(&churner, NULL, churn, NULL);
    for (int round = 0; round < ROUNDS; round++) {
        pthread_t t[AT_ONCE];
        for (int i = 0; i < AT_ONCE; i++) {
            pthread_attr_t attr;
            pthread_attr_init(&attr);
            if (i % 2) pthread_attr_setstacksize(&attr, (size_t)(256 + 16 * (round * AT_ONCE + i)) * 1024);
            pthread_create(&t[i], &attr, worker, &good[round * AT_ONCE + i]);
            pthread_attr_destroy(&attr);
        }
        for (int i = 0; i < AT_ONCE; i++) pthread_join(t[i], NULL);
    }
    __atomic_store_n(&churning, 0, __ATOMIC_RELEASE);
    pthread_join(churner, NULL);
    int all = 0;
    for (int i = 0; i < ROUNDS * AT_ONCE; i++) all += good[i] == WORKER_CALLS + 1;
    CHECK(all == ROUNDS * AT_ONCE);
    lib.mediator_free(shared_m);
    for (int i = 0; i < count; i++) pthread_key_delete(keys[i]);
    robustness_row("Every pthread key used before the library is loaded; then calls on 320 threads that exit, 8 at a time, half on reused pthread_ts",
                   ROUNDS * AT_ONCE, "calls work (records found by thread id and pthread_t), messages kept (cut at 511 bytes), no trap");
    return check_report("no_keys");
}
