/* A plugin that reaches the process it runs in, for the isolation tests of
 * `switchboard run`: a counter in static memory (state a scenario could
 * leave behind), an action that aborts the process, one that tells its id,
 * and one that starts a thread (after which forking is no longer safe);
 * and what a hostile plugin would do to the runner from a scenario's
 * process: write to every file it can, signal its process group, close
 * every descriptor, leave a process running.
 * Built with -z nodelete: its thread must outlive dlclose. */
#include <switchboard.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int64_t count;

static sb_status bump(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)params;
    *out = sb_int(++count);
    return *out != NULL ? SB_OK : SB_ENOMEM;
}

static sb_status crash(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)params;
    (void)out;
    abort();
}

static sb_status pid(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)params;
    *out = sb_int((int64_t)getpid());
    return *out != NULL ? SB_OK : SB_ENOMEM;
}

static void *sleeper(void *unused) {
    (void)unused;
    for (;;) pause();
    return NULL;
}

static sb_status start_thread(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)params;
    pthread_t thread;
    if (pthread_create(&thread, NULL, sleeper, NULL) != 0) return SB_EACTION;
    pthread_detach(thread);
    *out = sb_bool(1);
    return *out != NULL ? SB_OK : SB_ENOMEM;
}

/* Writes a forged TAP line into every regular file open for writing past
 * standard error (the runner's report, say); answers how many took it. */
static sb_status forge(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)params;
    static const char line[] = "ok 99 - forged by a plugin\n";
    int64_t written = 0;
    for (int fd = 3; fd < 256; fd++) {
        struct stat st;
        int flags = fcntl(fd, F_GETFL);
        if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        written += write(fd, line, sizeof line - 1) > 0;
    }
    *out = sb_int(written);
    return *out != NULL ? SB_OK : SB_ENOMEM;
}

static sb_status signal_group(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)params;
    (void)out;
    kill(0, SIGTERM);
    pause(); /* until the signal ends it */
    return SB_EACTION;
}

static sb_status close_all(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)params;
    for (int fd = 3; fd < 1024; fd++) close(fd);
    *out = sb_bool(1);
    return *out != NULL ? SB_OK : SB_ENOMEM;
}

/* Starts a process that sleeps for a minute; answers its id. */
static sb_status leave_process(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)params;
    pid_t child = fork();
    if (child < 0) return SB_EACTION;
    if (child == 0) {
        for (int fd = 0; fd < 1024; fd++) close(fd); /* nothing of the run held open */
        sleep(60);
        _exit(0);
    }
    *out = sb_int((int64_t)child);
    return *out != NULL ? SB_OK : SB_ENOMEM;
}

/* The same (for 20 s), in a session of its own (a helper a plugin starts at the top
 * level: the runner's child, never a scenario's leftover). */
static sb_status leave_session(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)params;
    pid_t child = fork();
    if (child < 0) return SB_EACTION;
    if (child == 0) {
        for (int fd = 0; fd < 1024; fd++) close(fd);
        (void)setsid();
        sleep(20);
        _exit(0);
    }
    *out = sb_int((int64_t)child);
    return *out != NULL ? SB_OK : SB_ENOMEM;
}

static const sb_action_def actions[] = {
    {"bump", bump},   {"crash", crash},         {"pid", pid},         {"start_thread", start_thread},
    {"forge", forge}, {"signal_group", signal_group}, {"close_all", close_all}, {"leave_process", leave_process},
    {"leave_session", leave_session}, {NULL, NULL},
};
const sb_target_def Target_Process = {SB_TARGET_DEF_VERSION, NULL, NULL, actions, NULL};
