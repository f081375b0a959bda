/*
 * What a scenario starts ends with it, wherever it went (Linux). A scenario's
 * process is a child subreaper (PR_SET_CHILD_SUBREAPER): a descendant left
 * orphaned while the scenario runs becomes its child, whatever process
 * group or session it moved to (setpgrp, setsid). When the scenario's
 * process ends, whatever it still has is handed to the runner, itself a
 * child subreaper while scenarios run; after each scenario's process is
 * reaped, the runner ends every child it has that is not a scenario's
 * process and not in the runner's own session (the processes a script's
 * top level started are, and stay, as do children it had before scenarios
 * started, in a session of their own or not), with its process group, and
 * reaps it, until none is left: each round takes the orphans of the last.
 *
 * What escapes: a process that is no descendant (one a service started
 * on request: systemd-run, at, ssh), what a scenario run the old way (in
 * the runner's own process) starts, and everything if the runner itself is
 * killed outright (SIGKILL: nothing of it runs; its scenarios' processes
 * die with it, PR_SET_PDEATHSIG, their descendants do not).
 */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/* Rounds of a sweep: one per generation of orphans. */
#define ROUNDS 64

#ifdef __linux__
static int children(pid_t *out, int capacity);
#endif

/* The runner's children when scenarios start: the processes its top level
 * started (a plugin's helper in a session of its own among them), never
 * the sweep's to end. */
static pid_t before[256];
static int before_count;

int sbr_reaper_begin(void) {
#ifdef __linux__
    int previous = 0;
    if (prctl(PR_GET_CHILD_SUBREAPER, &previous) != 0) previous = 0;
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1);
    before_count = children(before, (int)(sizeof before / sizeof before[0]));
    if (before_count < 0) before_count = 0;
    return previous;
#else
    return 0;
#endif
}

void sbr_reaper_end(int previous) {
#ifdef __linux__
    (void)prctl(PR_SET_CHILD_SUBREAPER, previous);
#else
    (void)previous;
#endif
}

void sbr_reaper_scenario(void) {
#ifdef __linux__
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
}

#ifdef __linux__
/* The children of every thread of this process, from /proc (a scenario's
 * process is forked from one thread, but a plugin may run others); -1 when
 * /proc cannot tell. */
static int children(pid_t *out, int capacity) {
    DIR *tasks = opendir("/proc/self/task");
    if (tasks == NULL) return -1;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(tasks)) != NULL && count < capacity) {
        if (e->d_name[0] == '.') continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/self/task/%.20s/children", e->d_name);
        FILE *f = fopen(path, "re");
        if (f == NULL) continue;
        long pid;
        while (count < capacity && fscanf(f, "%ld", &pid) == 1) out[count++] = (pid_t)pid;
        fclose(f);
    }
    closedir(tasks);
    return count;
}

/* Waits up to a second for `pid`, killed, to end, and reaps it. */
static void reap_killed(pid_t pid) {
    for (int i = 0; i < 1000; i++) {
        pid_t got = waitpid(pid, NULL, WNOHANG);
        if (got == pid || (got < 0 && errno != EINTR)) return;
        struct timespec pause = {0, 1000000L};
        nanosleep(&pause, NULL);
    }
}
#endif

void sbr_reaper_sweep(int (*is_scenario)(pid_t pid, void *context), void *context) {
#ifdef __linux__
    pid_t own_session = getsid(0);
    for (int round = 0; round < ROUNDS; round++) {
        pid_t found[256];
        int n = children(found, (int)(sizeof found / sizeof found[0]));
        int ended = 0;
        for (int i = 0; i < n; i++) {
            pid_t pid = found[i];
            /* Our child until reaped, so its id is not anyone else's. */
            int known = 0;
            for (int k = 0; k < before_count && !known; k++) known = before[k] == pid;
            if (known || is_scenario(pid, context) || getsid(pid) == own_session) continue;
            if (getpgid(pid) == pid) (void)kill(-pid, SIGKILL);
            (void)kill(pid, SIGKILL);
            reap_killed(pid);
            ended++;
        }
        if (ended == 0) return;
    }
#else
    (void)is_scenario;
    (void)context;
#endif
}
