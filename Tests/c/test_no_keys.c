/* A host that used every pthread key before it loaded libswitchboard.so
 * (with dlopen; this program does not link it). The library needs keys for
 * its thread records and its error messages; with none left it finds
 * records by thread instead, and keeps messages in a buffer of each
 * thread's (cut at 511 bytes): calls work, on any number of threads, and
 * failures keep their status and message. It trapped (SIGILL) before. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static struct {
    sb_mediator *(*mediator_new)(void);
    void (*mediator_free)(sb_mediator *);
    sb_status (*action_register)(sb_mediator *, const char *, const char *, sb_fn, void *, void (*)(void *));
    sb_status (*action_perform)(sb_mediator *, const char *, const char *, const sb_value *, unsigned, sb_value **);
    sb_status (*target_unregister)(sb_mediator *, const char *);
    sb_completion (*completion_take)(void);
    sb_status (*completion_succeed)(sb_completion, sb_value *);
    const char *(*error_message)(void);
    void (*error_set)(const char *, ...);
    sb_value *(*make_int)(int64_t);
    sb_status (*get_int)(const sb_value *, int64_t *);
    sb_value *(*dict_new)(void);
    sb_status (*dict_set)(sb_value *, const char *, sb_value *);
    sb_value *(*dict_get)(const sb_value *, const char *);
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
        /* valgrind runs one thread at a time and hands over at a syscall:
         * a thread that never makes one keeps every other waiting for its
         * whole time slice at each of theirs (without a key, each call asks
         * the kernel for its thread id). Without this the run under valgrind
         * took over ten minutes, not 4 s; natively it changes nothing. */
        sched_yield();
    }
    return NULL;
}

/* A thread that gets an exited thread's pthread_t (glibc hands a joined
 * thread's descriptor to the next one) took its record as it was, with the
 * exited thread's kernel id on it; the next new thread found that id dead,
 * emptied the record and took it too: two live threads on one record, what
 * one's action held let go, its userdata freed while it ran. */
#define SHARE_LIVE 0x4c495645u
#define SHARE_DEAD 0xdeadbeefu
static unsigned share_magic;
static sem_t share_entered, share_go;
static pthread_t share_first, share_second;
static int share_freed_while_running;

static void share_poison(void *ud) { *(unsigned *)ud = SHARE_DEAD; }

static sb_status share_blocks(void *ud, const sb_value *params, sb_value **out) {
    (void)params;
    sem_post(&share_entered);
    sem_wait(&share_go);
    if (*(unsigned *)ud != SHARE_LIVE) share_freed_while_running = 1;
    *out = lib.make_int(2);
    return SB_OK;
}

/* arg: where to note the thread (NULL: nowhere); the second one blocks. */
static void *share_call(void *arg) {
    sb_value *out = NULL;
    if (arg != NULL) *(pthread_t *)arg = pthread_self();
    if (arg == &share_second) lib.action_perform(shared_m, "Blocks", "run", NULL, 0, &out);
    else lib.action_perform(shared_m, "K", "answer", NULL, 0, &out);
    lib.release(out);
    return NULL;
}

/* A child forked inside an action goes on with the call it was in: its
 * thread's record is the parent's thread's (its kernel id differs, but it
 * is no thread that exited). In the child, an action that answers early
 * works inside that call and after it (a record emptied by the inner call
 * would leave the call level at -1 after the outer one: no completion to
 * take there). The child exits 0 when all went well. */
static sb_status forks_answers_early(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)params, (void)out;
    sb_completion c = lib.completion_take();
    if (c == 0 || lib.completion_succeed(c, lib.make_int(5)) != SB_OK) return SB_EACTION;
    return SB_PENDING;
}
static sb_status forks(void *ud, const sb_value *params, sb_value **out) {
    (void)params;
    pid_t child = fork();
    if (child == 0) {
        /* In the child: a call inside this one, then (in fork_in_call)
         * one after it. */
        sb_value *inner = NULL;
        int64_t n = 0;
        int good = lib.action_perform(shared_m, "Early", "run", NULL, 0, &inner) == SB_OK
            && lib.get_int(inner, &n) == SB_OK && n == 5;
        lib.release(inner);
        *(int *)ud = good ? 1 : 4;
    } else {
        int status = -1;
        waitpid(child, &status, 0);
        *(int *)ud = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 2 : 3;
    }
    *out = lib.make_int(1);
    return SB_OK;
}
static int fork_in_call(void) {
    static int where = 0;
    CHECK(lib.action_register(shared_m, "Forks", "run", forks, &where, NULL) == SB_OK);
    CHECK(lib.action_register(shared_m, "Early", "run", forks_answers_early, NULL, NULL) == SB_OK);
    sb_value *out = NULL;
    sb_status s = lib.action_perform(shared_m, "Forks", "run", NULL, 0, &out);
    lib.release(out);
    if (where == 1 || where == 4) { /* the child */
        int64_t n = 0;
        out = NULL;
        int good = s == SB_OK && lib.action_perform(shared_m, "Early", "run", NULL, 0, &out) == SB_OK
            && lib.get_int(out, &n) == SB_OK && n == 5;
        _exit(good && where == 1 ? 0 : 1);
    }
    return where == 2;
}

/* Returns whether the second thread got the first one's pthread_t (else
 * the case did not arise and proves nothing). */
static int share_round(void) {
    share_magic = SHARE_LIVE;
    CHECK(lib.action_register(shared_m, "Blocks", "run", share_blocks, &share_magic, share_poison) == SB_OK);
    pthread_t first, second, third;
    pthread_create(&first, NULL, share_call, &share_first);
    pthread_join(first, NULL);
    pthread_create(&second, NULL, share_call, &share_second);
    sem_wait(&share_entered);
    pthread_create(&third, NULL, share_call, NULL); /* a new thread: a record of an exited one */
    pthread_join(third, NULL);
    CHECK(lib.target_unregister(shared_m, "Blocks") == SB_OK); /* the running action's entry stays held */
    sem_post(&share_go);
    pthread_join(second, NULL);
    CHECK(!share_freed_while_running && share_magic == SHARE_DEAD);
    return pthread_equal(share_first, share_second);
}

/* A host without /proc (a chroot, a container that does not mount it).
 * Without a key the library tells an exited thread's record by its kernel
 * id, which it looked up under /proc/self/task: every other thread seemed to
 * have exited, its record was emptied under it and handed to another
 * thread (wrong answers, then SIGSEGV). This program's access() is the one
 * the library calls (built with -rdynamic): while hide_proc is set, /proc
 * is not there. */
static int hide_proc;
int access(const char *path, int mode) {
    if (__atomic_load_n(&hide_proc, __ATOMIC_RELAXED) && strncmp(path, "/proc/", 6) == 0) {
        errno = ENOENT;
        return -1;
    }
    return faccessat(AT_FDCWD, path, mode, 0);
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

/* K.nest: calls itself params.n levels deep, yielding at the bottom, and
 * answers the depth it reached: a thread stays inside calls while new
 * threads make their first ones. */
static sb_status nest(void *ud, const sb_value *params, sb_value **out) {
    (void)ud;
    int64_t left = 0;
    (void)lib.get_int(lib.dict_get(params, "n"), &left);
    if (left <= 1) {
        sched_yield();
        *out = lib.make_int(1);
        return SB_OK;
    }
    sb_value *inner_params = lib.dict_new();
    (void)lib.dict_set(inner_params, "n", lib.make_int(left - 1));
    sb_value *inner = NULL;
    int64_t reached = 0;
    sb_status status = lib.action_perform(shared_m, "K", "nest", inner_params, 0, &inner);
    if (status == SB_OK) (void)lib.get_int(inner, &reached);
    lib.release(inner);
    lib.release(inner_params);
    *out = lib.make_int(reached + 1);
    return status;
}

#define NEST_DEPTH 40
static void *nesting_worker(void *arg) {
    int *good = arg;
    sb_value *params = lib.dict_new();
    (void)lib.dict_set(params, "n", lib.make_int(NEST_DEPTH));
    for (int i = 0; i < WORKER_CALLS / 10; i++) {
        sb_value *out = NULL;
        int64_t n = 0;
        if (lib.action_perform(shared_m, "K", "nest", params, 0, &out) == SB_OK && lib.get_int(out, &n) == SB_OK
            && n == NEST_DEPTH)
            *good += 10;
        lib.release(out);
    }
    lib.release(params);
    sb_value *out = NULL;
    if (lib.action_perform(shared_m, "Nowhere", "x", NULL, 0, &out) == SB_ENOTARGET) (*good)++;
    return NULL;
}

/* ASan's own free() crashes inside glibc's dlopen once every pthread key is
 * taken (its per-thread state is read as garbage in _dlerror_run), before
 * the library runs any code: the program cannot run under it. valgrind
 * memcheck runs it (make valgrind). */
#if defined(__SANITIZE_ADDRESS__)
#define NO_KEYS_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_KEYS_UNDER_ASAN 1
#endif
#endif

enum { ROUNDS = 40, AT_ONCE = 8 };

/* ROUNDS rounds of AT_ONCE threads that call and exit, while another thread
 * changes the target; how many threads' calls all worked. */
static int threads_in_rounds(int rounds, void *(*work)(void *)) {
    static int good[ROUNDS * AT_ONCE];
    memset(good, 0, sizeof good);
    pthread_t churner;
    churning = 1;
    pthread_create(&churner, NULL, churn, NULL);
    for (int round = 0; round < rounds; round++) {
        pthread_t t[AT_ONCE];
        for (int i = 0; i < AT_ONCE; i++) {
            pthread_attr_t attr;
            pthread_attr_init(&attr);
            if (i % 2) pthread_attr_setstacksize(&attr, (size_t)(256 + 16 * (round * AT_ONCE + i)) * 1024);
            pthread_create(&t[i], &attr, work, &good[round * AT_ONCE + i]);
            pthread_attr_destroy(&attr);
        }
        for (int i = 0; i < AT_ONCE; i++) pthread_join(t[i], NULL);
    }
    __atomic_store_n(&churning, 0, __ATOMIC_RELEASE);
    pthread_join(churner, NULL);
    int all = 0;
    for (int i = 0; i < rounds * AT_ONCE; i++) all += good[i] == WORKER_CALLS + 1;
    return all;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s PLUGIN-DIR LIBRARY\n", argv[0]);
        return 2;
    }
#ifdef NO_KEYS_UNDER_ASAN
    printf("no_keys: not run under ASan (its free() crashes in glibc's dlopen without a key); valgrind runs it\n");
    return 0;
#endif
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
        && LOAD(handle, target_unregister, "sb_target_unregister")
        && LOAD(handle, completion_take, "sb_completion_take")
        && LOAD(handle, completion_succeed, "sb_completion_succeed")
        && LOAD(handle, error_message, "sb_error_message") && LOAD(handle, error_set, "sb_error_set")
        && LOAD(handle, make_int, "sb_int") && LOAD(handle, get_int, "sb_value_get_int")
        && LOAD(handle, dict_new, "sb_dict_new") && LOAD(handle, dict_set, "sb_dict_set_new")
        && LOAD(handle, dict_get, "sb_dict_get")
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
    CHECK(threads_in_rounds(ROUNDS, worker) == ROUNDS * AT_ONCE);
    /* Without /proc, threads deep in calls while new ones start: each
     * keeps its record. */
    CHECK(lib.action_register(shared_m, "K", "nest", nest, NULL, NULL) == SB_OK);
    __atomic_store_n(&hide_proc, 1, __ATOMIC_RELAXED);
    CHECK(threads_in_rounds(ROUNDS / 4, nesting_worker) == ROUNDS / 4 * AT_ONCE);
    __atomic_store_n(&hide_proc, 0, __ATOMIC_RELAXED);

    sem_init(&share_entered, 0, 0);
    sem_init(&share_go, 0, 0);
    int shared_descriptor = 0;
    for (int round = 0; round < 5; round++) shared_descriptor += share_round();
    if (shared_descriptor == 0) fprintf(stderr, "no_keys: no thread got an exited one's pthread_t here\n");

    CHECK(fork_in_call());

    lib.mediator_free(shared_m);
    for (int i = 0; i < count; i++) pthread_key_delete(keys[i]);
    robustness_row("No pthread key left: a thread that gets an exited thread's pthread_t runs an action while a "
                   "new thread makes its first call", 5, "each thread has a record of its own: the running "
                   "action's entry stays held, its userdata is freed after it returns");
    robustness_row("No pthread key left and no /proc: threads 40 calls deep while new threads make their first calls (80 threads, 8 at a time)", ROUNDS / 4 * AT_ONCE,
                   "threads are told live or exited by tgkill(2): each keeps its record, calls work");
    robustness_row("No pthread key left: a child forked inside an action goes on with that call, then calls an "
                   "action that answers early", 1, "the child's thread keeps its record: its calls work");
    robustness_row("Every pthread key used before the library is loaded; then calls on 320 threads that exit, 8 at a time, half on reused pthread_ts",
                   ROUNDS * AT_ONCE, "calls work (records found by thread id and pthread_t), messages kept (cut at 511 bytes), no trap");
    return check_report("no_keys");
}
