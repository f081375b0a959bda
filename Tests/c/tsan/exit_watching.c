/* A process that exits while the library's timeout thread (sb-watch) still
 * watches a deadline, built with ThreadSanitizer (which intercepts the
 * library's pthread calls, instrumented or not). The thread must never be
 * left finished and unjoined: a checker reports that as a thread leak, and
 * fails the host's own test run (TSan exits with 66).
 *
 *   exit_watching running   the deadline passes during exit: the exit
 *                           handlers that run after the library's sleep
 *                           past it, then start one more such call
 *   exit_watching idle      the thread ended idle before exit
 *   exit_watching forked    it ended idle, then the process forks: the
 *                           child starts a thread of its own (glibc may
 *                           give it the dead thread's descriptor, so its
 *                           pthread_t), makes a call with a deadline and
 *                           exits; the library must never join the
 *                           parent's thread from the child (it blocked on
 *                           the child's own thread, or took its join) */
#include "../check.h"
#include <dirent.h>
#include <sys/wait.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

static sb_mediator *m;
static sb_completion pending;

static sb_status later(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)params, (void)out;
    pending = sb_completion_take();
    return SB_PENDING;
}

static void done(void *ud, sb_status status, sb_value *result) {
    (void)ud, (void)status;
    sb_value_release(result);
}

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* Whether a thread of this process is named sb-watch now. */
static int watch_thread_named(void) {
    DIR *tasks = opendir("/proc/self/task");
    int found = 0;
    struct dirent *e;
    while (tasks && (e = readdir(tasks)) != NULL) {
        char path[300], name[32] = "";
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f && fgets(name, sizeof name, f) && strncmp(name, "sb-watch", 8) == 0) found = 1;
        if (f) fclose(f);
    }
    if (tasks) closedir(tasks);
    return found;
}

/* Whether the watch thread runs (`want` 1) or not (0), waiting up to 2 s
 * for it: the thread names itself once it runs, and exits in its time. */
static int watch_thread_runs(int want) {
    for (int i = 0; i < 200 && watch_thread_named() != want; i++) sleep_ms(10);
    return watch_thread_named() == want;
}

/* An answered call that keeps its place in the watch until its deadline. */
static int answered_call_with_deadline(unsigned timeout_ms) {
    sb_call_options o = SB_CALL_OPTIONS_INIT;
    o.timeout_ms = timeout_ms;
    return sb_action_perform_async(m, "Exit", "later", NULL, &o, done, NULL) == SB_PENDING &&
           sb_completion_succeed(pending, sb_int(1)) == SB_OK;
}

/* Registered before the library's own exit handler, so it runs after it;
 * main's report is printed by then, so a failure here exits at once. */
static void after_the_library(void) {
    sleep_ms(400); /* the 200 ms deadline passes: the thread ends */
    int started = answered_call_with_deadline(50) && watch_thread_runs(1); /* a thread started during exit */
    sleep_ms(200);
    sb_mediator_free(m);
    if (!started) {
        fprintf(stderr, "exit_watching: no call with a deadline could start during exit\n");
        _exit(1);
    }
}

static void *child_thread(void *arg) {
    sleep_ms(100);
    return arg;
}

static void *child_alarm(void *arg) {
    (void)arg;
    sleep_ms(3000);
    fprintf(stderr, "exit_watching forked: the child's call with a deadline still blocks after 3 s\n");
    _exit(7);
}

/* The child's checks; its exit status says how they went. */
static int forked_child(void) {
    pthread_t own, alarm;
    static int token;
    if (pthread_create(&own, NULL, child_thread, &token) != 0) return 2;
    if (pthread_create(&alarm, NULL, child_alarm, NULL) != 0) return 2;
    pthread_detach(alarm);
    if (!answered_call_with_deadline(20)) return 3;
    void *got = NULL;
    if (pthread_join(own, &got) != 0 || got != &token) return 4; /* the library took its join */
    return 0;
}

static void forked(void) {
    CHECK(answered_call_with_deadline(20));
    CHECK(watch_thread_runs(1));
    CHECK(watch_thread_runs(0)); /* ended idle, not joined yet */
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) exit(forked_child()); /* exit: ThreadSanitizer looks for leaks */
    int status = -1;
    CHECK(child > 0 && waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    robustness_row("A process forks after the library's watch thread ended idle; the child starts a thread (which may "
                   "get the dead thread's pthread_t), makes a call with a deadline and exits (under ThreadSanitizer)",
                   1, "the thread is joined before the fork; the child never joins the parent's: its call returns at "
                      "once, its own join gets its thread's value, no leak reported");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "exit_watching forked: child status %d (66: a thread leak reported)\n", status);
    }
}

int main(int argc, char **argv) {
    int running = argc > 1 && strcmp(argv[1], "running") == 0;
    if (argc > 1 && strcmp(argv[1], "forked") == 0) {
        m = sb_mediator_new();
        CHECK_STATUS(sb_action_register(m, "Exit", "later", later, NULL, NULL), SB_OK);
        forked();
        sb_mediator_free(m);
        return check_report("exit_watching forked");
    }
    m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(m, "Exit", "later", later, NULL, NULL), SB_OK);
    if (running) {
        atexit(after_the_library);
        CHECK(answered_call_with_deadline(200));
        CHECK(watch_thread_runs(1));
        robustness_row("A process exits while the library's watch thread waits for a deadline that passes during exit, "
                       "and an exit handler starts another such call (under ThreadSanitizer)",
                       2, "the thread is detached at exit (joined if it had ended): no thread left finished and unjoined, "
                          "no leak reported");
    } else {
        CHECK(answered_call_with_deadline(50));
        CHECK(watch_thread_runs(1));
        CHECK(watch_thread_runs(0)); /* exited idle: joined at exit */
        sb_mediator_free(m);
    }
    return check_report(running ? "exit_watching running" : "exit_watching idle");
}
