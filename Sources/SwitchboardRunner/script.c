/*
 * A script's top level runs once (sbr_script_open); each scenario then runs
 * in a process forked from that prepared state. The copy is the isolation:
 * the child starts where the top level ended, and nothing it does (globals,
 * registrations, interceptors, a plugin's statics, a crash) reaches the
 * parent or the next scenario. Setting a scenario up costs a fork, whatever
 * the number of scenarios the script defines; re-running the top level cost
 * time in proportion to it.
 *
 * Forking is safe here because the process is single-threaded when it
 * forks: the child then is a whole copy, with every lock free (the watchdog
 * of the top level is joined first). If another thread is running (a
 * plugin's, say), the child would hold only the forking thread and any lock
 * the others held would stay taken, in malloc, the Swift runtime or a
 * plugin; so then, or if fork fails, sbr_script_run_jobs says so and the caller
 * runs the scenario the old way (sbr_run).
 *
 * The child never returns: it sends its report up the pipe and _exits,
 * without closing its state or mediator (closing would touch, so copy,
 * every page of them). jobs.c is the parent's side.
 */
#include "internal.h"
#include "switchboard_internal.h" /* sb__own_threads_settle */

#include <dirent.h>
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif


sbr_script *sbr_script_open(const sbr_config *config, const char *script) {
    sbr_script *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    s->config = *config;
    s->script = sbr_strdup(script);
    s->channel = -1;
    if (s->script == NULL) {
        free(s);
        return NULL;
    }
#ifdef __GLIBC__
    /* What the listing (and an earlier script) freed is still mapped: give
     * it back before the prepared state adds its own, and again after, for
     * what preparing freed. Each fork would copy it. */
    malloc_trim(0);
#endif
    sbr_descriptors before;
    sbr_descriptors_snapshot(&before);
    sbr_seeded_by_script = 0; /* this script's top level may set it */
    sbr_script_prepare(s);
    if (s->ready) {
        sbr_descriptors_snapshot(&s->opened);
        sbr_descriptors_opened_since(&s->opened, &before);
    }
    sbr_descriptors_free(&before);
#ifdef __GLIBC__
    if (s->ready) malloc_trim(0);
#endif
    return s;
}

void sbr_script_close(sbr_script *s) {
    if (s == NULL) return;
    sbr_script_close_state(s);
    sbr_result_clear(&s->problem);
    sbr_descriptors_free(&s->opened);
    free(s->script);
    free(s);
}

static int threads_now(void);

int sbr_single_threaded(void) {
    /* A thread just joined (the top level's watchdog) may still be counted
     * for a moment: the kernel wakes pthread_join before it takes the thread
     * out of the count. Under load that moment lasts; look again for up to
     * 100 ms before concluding that another thread runs. */
    for (int attempt = 0; attempt < 100; attempt++) {
        int single = threads_now();
        if (single != 0) return single;
        struct timespec pause = {0, 1000000L};
        nanosleep(&pause, NULL);
    }
    return 0;
}

/* 1 when the process runs one thread, 0 when more, -1 when it cannot tell. */
static int threads_now(void) {
#ifdef __linux__
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char text[1024];
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return -1;
    text[n] = '\0';
    /* The name, in parentheses, may hold anything: count fields after its
     * last ')'. num_threads is field 20; field 3 comes first. */
    const char *at = strrchr(text, ')');
    if (at == NULL) return 0;
    for (int field = 2; field < 20 && at != NULL; field++) at = strchr(at + 1, ' ');
    return at != NULL && strtol(at + 1, NULL, 10) == 1;
#else
    return 0;
#endif
}

int sbr_settle_threads(void) {
    int single = sbr_single_threaded();
    if (single != 0) return single;
    /* The library's own threads (the watch a call with a timeout started
     * at the top level) exit when asked, if they have nothing to do. */
    (void)sb__own_threads_settle(500);
    return sbr_single_threaded();
}

/* The library names its threads "sb-..." (sb-watch, sb-intercept). */
static int library_thread(const char *name) {
    return strncmp(name, "sb-", 3) == 0;
}

void sbr_describe_threads(char *out, size_t size) {
#ifdef __linux__
    /* This thread's id: /proc/thread-self is "PID/task/TID". */
    char self[64] = "";
    ssize_t n = readlink("/proc/thread-self", self, sizeof self - 1);
    const char *own = n > 0 ? (self[n] = '\0', strrchr(self, '/')) : NULL;
    own = own != NULL ? own + 1 : "";
    struct { char name[16]; int count; } seen[8];
    int kinds = 0, others = 0;
    DIR *tasks = opendir("/proc/self/task");
    struct dirent *e;
    while (tasks != NULL && (e = readdir(tasks)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, own) == 0) continue;
        char path[64], name[16] = "?";
        snprintf(path, sizeof path, "/proc/self/task/%.20s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f != NULL) {
            if (fgets(name, sizeof name, f) == NULL) strcpy(name, "?");
            fclose(f);
        }
        name[strcspn(name, "\n")] = '\0';
        int k = 0;
        while (k < kinds && strcmp(seen[k].name, name) != 0) k++;
        if (k == kinds && kinds < 8) {
            strcpy(seen[kinds].name, name);
            seen[kinds++].count = 0;
        }
        if (k < kinds) seen[k].count++;
        others++;
    }
    if (tasks != NULL) closedir(tasks);
    size_t used = (size_t)snprintf(out, size, "%d other thread%s running:", others, others == 1 ? " is" : "s are");
    for (int k = 0; k < kinds && used < size; k++) {
        char shown[64];
        sbr_visible(seen[k].name, shown, sizeof shown); /* a thread names itself as it likes */
        used += (size_t)snprintf(out + used, size - used, "%s %d named \"%s\" (%s)", k > 0 ? "," : "", seen[k].count,
                                 shown, library_thread(seen[k].name) ? "the library's own: it did not exit when asked"
                                                                     : "not the library's: a plugin's?");
    }
#else
    snprintf(out, size, "another thread is running");
#endif
}

/* The trace function of a scenario's process: each line up the pipe. */
static void send_trace(void *context, const char *line, size_t length) {
    sbr_script *s = context;
    (void)sbr_channel_send(s->channel, SBR_RECORD_TRACE, line, length + 1);
}

void sbr_scenario_process(sbr_script *s, size_t index, const char *name, int channel, pid_t parent) {
#ifdef __linux__
    /* A parent that is killed takes its scenario with it. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(SBR_STUCK_EXIT);
#else
    (void)parent;
#endif
    sbr_signals_default(); /* a signal sent to it ends it, and the runner reports how */
    sbr_isolate_scenario_process(&s->opened, channel, s->L);
    sbr_reaper_scenario(); /* what it starts stays its own, to end with it */
    s->channel = channel;
    if (s->config.trace != NULL) {
        s->config.trace = send_trace;
        s->config.trace_context = s;
    }
    sbr_result result;
    memset(&result, 0, sizeof result);
    sbr_script_run_here(s, index, name, &result);
    int sent = sbr_channel_send_result(channel, &result);
    fflush(NULL); /* what the scenario wrote to C streams (a plugin's printf, io files) */
    _exit(sent ? 0 : SBR_UNREPORTED_EXIT);
}

