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
 * plugin; so then, or if fork fails, sbr_script_run says so and the caller
 * runs the scenario the old way (sbr_run).
 *
 * The child never returns: it sends its report up the pipe and _exits,
 * without closing its state or mediator (closing would touch, so copy,
 * every page of them). The parent waits for the report; a child that dies
 * first is reported from how it died, and one stuck past its timeout and
 * grace is ended by its own watchdog (or, failing that, by the parent).
 */
#include "internal.h"

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/* How long past the child's own watchdog the parent waits before it ends
 * the child itself. */
#define BACKSTOP_SECONDS 2.0

/* How a scenario's process ends when its report could not be sent. */
#define UNREPORTED_EXIT 4

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

/* 1 when this process runs one thread only (Linux: /proc/self/stat). */
static int single_threaded(void) {
#ifdef __linux__
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char text[1024];
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return 0;
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

/* The trace function of a scenario's process: each line up the pipe. */
static void send_trace(void *context, const char *line, size_t length) {
    sbr_script *s = context;
    (void)sbr_channel_send(s->channel, SBR_RECORD_TRACE, line, length + 1);
}

/* The scenario's process: runs it in its copy of the state, reports, ends. */
static void scenario_process(sbr_script *s, size_t index, const char *name, int channel, pid_t parent) {
#ifdef __linux__
    /* A parent that is killed takes its scenario with it. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(SBR_STUCK_EXIT);
#else
    (void)parent;
#endif
    sbr_isolate_scenario_process(&s->opened, channel, s->L);
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
    _exit(sent ? 0 : UNREPORTED_EXIT);
}

static void set_message(sbr_result *r, sbr_outcome outcome, const char *message) {
    r->outcome = outcome;
    free(r->message);
    r->message = sbr_strdup(message);
}

/* What the parent knows of one scenario's process. */
typedef struct child {
    pid_t pid;
    int fd;                   /* the read end of its pipe */
    double started, deadline; /* deadline 0: none */
    int reported, killed, reaped, status;
    sbr_inbox inbox;
} child;

/* Takes the whole records that came: trace lines go to config->trace as
 * they come, the result fills *r. */
static void take_records(sbr_script *s, child *c, sbr_result *r) {
    char kind;
    const char *payload;
    size_t length;
    while (!c->reported && sbr_inbox_take(&c->inbox, &kind, &payload, &length)) {
        if (kind == SBR_RECORD_TRACE && length > 0 && s->config.trace != NULL) {
            s->config.trace(s->config.trace_context, payload, length - 1);
        } else if (kind == SBR_RECORD_RESULT) {
            if (!sbr_channel_decode_result(payload, length, r)) {
                set_message(r, SBR_ERROR, "the scenario's process sent a report that does not read");
            }
            c->reported = 1;
        }
    }
}

/* Ends the child and what it started (its session's group: see
 * isolation.c), or the child alone if it has not made its group yet. */
static void end_group(child *c) {
    (void)kill(-c->pid, SIGKILL);
    (void)kill(c->pid, SIGKILL);
}

/* 1 once the child has ended and is reaped (options: 0 or WNOHANG). */
static int reap(child *c, int options) {
    if (c->reaped) return 1;
    pid_t p;
    while ((p = waitpid(c->pid, &c->status, options)) < 0 && errno == EINTR) {}
    if (p == c->pid || (p < 0 && errno == ECHILD)) c->reaped = 1;
    return c->reaped;
}

/* Reads the child's records until its report, its end (a process it
 * started may hold the pipe open: it is looked for once a second) or the
 * deadline, when it is killed. A pipe that ends before the report (closed
 * by a plugin, say) is not the child's end: it is waited for. */
static void receive(sbr_script *s, child *c, sbr_result *r) {
    struct pollfd ready = {.fd = c->fd, .events = POLLIN};
    int open = 1;
    while (!c->reported) {
        int wait_ms = 1000;
        if (c->deadline > 0) {
            double left = c->deadline - sbr_now();
            if (left <= 0) {
                end_group(c);
                c->killed = 1;
                return;
            }
            if (left < 1) wait_ms = (int)(left * 1000) + 1;
        }
        if (!open) {
            if (c->deadline == 0) (void)reap(c, 0);
            if (reap(c, WNOHANG)) return;
            (void)poll(NULL, 0, wait_ms < 20 ? wait_ms : 20);
            continue;
        }
        int n = poll(&ready, 1, wait_ms);
        if (n < 0 && errno != EINTR) return;
        if (n > 0) {
            int got = sbr_inbox_read(&c->inbox, c->fd);
            if (got < 0) return; /* a stream that is not ours */
            if (got == 0) open = 0;
            take_records(s, c, r);
        } else if (n == 0 && reap(c, WNOHANG)) {
            while (!c->reported && poll(&ready, 1, 0) > 0 && sbr_inbox_read(&c->inbox, c->fd) > 0) {
                take_records(s, c, r);
            }
            return;
        }
    }
}

/* Runs the scenario in a forked process; 0 (nothing run) when it cannot. */
static int run_forked(sbr_script *s, size_t index, const char *name, sbr_result *r) {
    if (!single_threaded()) {
        s->not_forked = "another thread is running after the script's top level (a plugin's?), and a process "
                        "forked now would hold only this one";
        return 0;
    }
    s->not_forked = "a process could not be made for it (pipe or fork failed)";
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) return 0;
    fcntl(pipe_fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(pipe_fds[1], F_SETFD, FD_CLOEXEC);
    fflush(NULL); /* or the child would write what is buffered here a second time */
    pid_t parent = getpid();
    child c = {.fd = pipe_fds[0], .started = sbr_now()};
    c.pid = fork();
    if (c.pid < 0) {
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        return 0;
    }
    if (c.pid == 0) {
        close(pipe_fds[0]);
        scenario_process(s, index, name, pipe_fds[1], parent);
    }
    close(pipe_fds[1]);
    s->not_forked = NULL;

    /* The child's watchdog ends it at its timeout plus the grace; the
     * parent waits a little longer before it does so itself. */
    double timeout = s->config.timeout_seconds, grace = s->guard.grace;
    double left = timeout > s->spent ? timeout - s->spent : 0;
    if (timeout > 0) c.deadline = c.started + left + grace + BACKSTOP_SECONDS;
    receive(s, &c, r);
    close(c.fd);
    sbr_inbox_free(&c.inbox);
    if (!c.reported && !c.reaped) end_group(&c); /* no report can come now */
    reap(&c, 0);
    /* What the scenario started ends with it: a process left running could
     * reach the next scenario (a file, a port, the target it serves). */
    (void)kill(-c.pid, SIGKILL);
    if (c.reported) return 1;

    char message[300];
    int stuck = c.killed || (WIFEXITED(c.status) && WEXITSTATUS(c.status) == SBR_STUCK_EXIT && timeout > 0
                             && sbr_now() - c.started >= left + grace);
    if (stuck) {
        snprintf(message, sizeof message,
                 "still running %g s past the timeout of %g s (--timeout), in code no limit can interrupt "
                 "(a C function?): its process was ended (--grace)", grace, timeout);
        set_message(r, SBR_LIMIT, message);
    } else if (WIFSIGNALED(c.status)) {
        int signal = WTERMSIG(c.status);
        snprintf(message, sizeof message, "the scenario's process was ended by signal %d (%s): it crashed",
                 signal, strsignal(signal));
        set_message(r, SBR_ERROR, message);
    } else if (WIFEXITED(c.status) && WEXITSTATUS(c.status) == UNREPORTED_EXIT) {
        set_message(r, SBR_ERROR, "the scenario's process could not send its report: its pipe to the runner "
                                  "was closed or broken (by a plugin?)");
    } else {
        snprintf(message, sizeof message, "the scenario's process exited with status %d before it reported",
                 WIFEXITED(c.status) ? WEXITSTATUS(c.status) : -1);
        set_message(r, SBR_ERROR, message);
    }
    return 1;
}

const char *sbr_script_not_forked(const sbr_script *s) {
    return s != NULL ? s->not_forked : NULL;
}

int sbr_script_run(sbr_script *s, size_t index, const char *name, sbr_result *result) {
    memset(result, 0, sizeof *result);
    if (s == NULL) return 0;
    double started = sbr_now();
    if (!s->ready) { /* the top level did not run: its problem is every scenario's */
        result->outcome = s->problem.outcome;
        result->message = sbr_strdup(s->problem.message);
        result->where = sbr_strdup(s->problem.where);
        result->traceback = sbr_strdup(s->problem.traceback);
    } else if (!run_forked(s, index, name, result)) {
        sbr_result_clear(result);
        return 0;
    }
    free(result->name);
    result->name = sbr_strdup(name);
    result->seconds = sbr_now() - started;
    return 1;
}
