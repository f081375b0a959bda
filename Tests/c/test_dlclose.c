/* A host that opens libswitchboard.so with dlopen, uses it on a thread of
 * its own and closes it while that thread lives. The library keeps
 * per-thread state whose destructors run when the thread exits (the error
 * slot, the thread's record and its completions), and a Swift runtime that
 * cannot be unloaded; so dlclose must leave it loaded (it is linked
 * -z nodelete). Unloaded, the thread's exit called a destructor that was no
 * longer mapped: a crash. This program does not link the library. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "check.h"

typedef sb_mediator *(*new_fn)(void);
typedef void (*free_fn)(sb_mediator *);
typedef sb_status (*perform_fn)(sb_mediator *, const char *, const char *, const sb_value *, unsigned, sb_value **);
typedef const char *(*message_fn)(void);

static void *symbol(void *lib, const char *name, void *fn_out, size_t size) {
    void *p = dlsym(lib, name);
    if (p) memcpy(fn_out, &p, size);
    return p;
}
#define LOAD(lib, var) symbol(lib, #var, &var, sizeof var)

static void *lib;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int used, closed;
static sb_status seen = SB_OK;

/* Uses the library (a call that fails, so that the thread's error message
 * is set too), then waits until main has closed it, and exits. */
static void *worker(void *arg) {
    (void)arg;
    new_fn sb_mediator_new = NULL;
    free_fn sb_mediator_free = NULL;
    perform_fn sb_action_perform = NULL;
    message_fn sb_error_message = NULL;
    if (LOAD(lib, sb_mediator_new) && LOAD(lib, sb_mediator_free) && LOAD(lib, sb_action_perform)
        && LOAD(lib, sb_error_message)) {
        sb_mediator *m = sb_mediator_new();
        sb_value *out = NULL;
        seen = sb_action_perform(m, "Missing", "act", NULL, 0, &out);
        (void)sb_error_message();
        sb_mediator_free(m);
    }
    pthread_mutex_lock(&lock);
    used = 1;
    pthread_cond_broadcast(&changed);
    while (!closed) pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s PLUGIN-DIR LIBRARY\n", argv[0]);
        return 2;
    }
    lib = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    CHECK(lib != NULL);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return check_report("dlclose");
    }
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, worker, NULL) == 0);
    pthread_mutex_lock(&lock);
    while (!used) pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
    CHECK(seen == SB_ENOTARGET);

    CHECK(dlclose(lib) == 0);
    void *still = dlopen(argv[2], RTLD_NOW | RTLD_NOLOAD);
    CHECK(still != NULL); /* -z nodelete: closing did not unload it */
    if (still) dlclose(still);

    /* The thread exits now: its destructors run in the library. */
    pthread_mutex_lock(&lock);
    closed = 1;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    CHECK(pthread_join(thread, NULL) == 0);

    /* Opened again, it is the same library, and works. */
    lib = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    CHECK(lib != NULL);
    new_fn sb_mediator_new = NULL;
    free_fn sb_mediator_free = NULL;
    CHECK(lib && LOAD(lib, sb_mediator_new) && LOAD(lib, sb_mediator_free));
    if (sb_mediator_new && sb_mediator_free) sb_mediator_free(sb_mediator_new());
    if (lib) dlclose(lib);
    robustness_row("a host dlcloses libswitchboard while a thread that used it lives, then the thread exits", 1,
                   "the library stays loaded (-z nodelete); the thread's destructors run, no crash; opened again, it works");
    return check_report("dlclose");
}
