/*
 * The runner's side of scenarios' processes (script.c makes them): up to
 * `jobs` run at once, each sending its trace lines and its report up a pipe
 * of its own, and both are passed on in the order the scenarios were given,
 * whatever order the processes end in. A process that ends before it
 * reports is reported from how it ended; one stuck past its timeout and
 * grace is ended by its own watchdog or, failing that, from here.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long past the child's own watchdog the parent waits before it ends
 * the child itself. */
#define BACKSTOP_SECONDS 2.0

/* How many scenarios past the next to report may have run: their reports
 * wait in memory until their turn. */
#define AHEAD_PER_JOB 8
/* No scenario is started while what those waiting for their turn sent
 * passes this (their reports, their trace lines). */
#define WAITING_LIMIT ((size_t)64 << 20)
/* What a scenario waiting for its turn sent is kept in memory up to this,
 * then moved to a temporary file of its own (a scenario that floods trace
 * lines while an earlier one is slow would otherwise grow the runner). */
#define SPILL_AT ((size_t)256 << 10)

/* What the parent knows of one scenario's process. */
typedef struct job {
    pid_t pid;
    int fd;                   /* the read end of its pipe; -1 once it ended */
    double started, ended, deadline; /* deadline 0: none */
    int killed, reaped, status;
    int reported;             /* its report record was read */
    sbr_inbox inbox;
    FILE *spool;              /* what it sent while waiting for its turn, past SPILL_AT */
    sbr_result result;
} job;

/* The jobs a signal stopping the run ends at once (sbr_jobs_end_running). */
static job *volatile running_jobs;
static volatile size_t running_from, running_to;

/* Ends the child and what it started (its session's group: see
 * isolation.c), or the child alone if it has not made its group yet. */
static void end_group(const job *j) {
    (void)kill(-j->pid, SIGKILL);
    (void)kill(j->pid, SIGKILL);
}

/* The sweep's question (reaper.c): is `pid` a running scenario's process? */
static int is_scenario(pid_t pid, void *context) {
    (void)context;
    job *all = running_jobs;
    for (size_t i = running_from; all != NULL && i < running_to; i++) {
        if (all[i].pid == pid && !all[i].reaped) return 1;
    }
    return 0;
}

/* 1 once the child has ended and is reaped (options: 0 or WNOHANG). */
static int reap(job *j, int options) {
    if (j->reaped) return 1;
    siginfo_t info;
    memset(&info, 0, sizeof info);
    int found;
    /* Seen ended but not reaped yet (WNOWAIT): until it is, its id cannot
     * be anyone else's, so the group it led can be ended safely. */
    while ((found = waitid(P_PID, (id_t)j->pid, &info, WEXITED | WNOWAIT | (options & WNOHANG))) < 0
           && errno == EINTR) {}
    if (found < 0 && errno == ECHILD) {
        j->reaped = 1;
        j->ended = sbr_now();
        return 1;
    }
    if (found < 0 || info.si_pid != j->pid) return 0;
    /* What the scenario started ends with it: a process left running could
     * reach the next scenario (a file, a port, the target it serves). */
    (void)kill(-j->pid, SIGKILL);
    while (waitpid(j->pid, &j->status, 0) < 0 && errno == EINTR) {}
    j->reaped = 1;
    j->ended = sbr_now();
    /* What it started elsewhere (another group, another session) was
     * handed to the runner as it ended: ended too. */
    sbr_reaper_sweep(is_scenario, NULL);
    return 1;
}

static void close_pipe(job *j) {
    if (j->fd >= 0) close(j->fd);
    j->fd = -1;
}

/* Starts scenario `index` in a process of its own; 0 when one cannot be
 * made. */
static int start(sbr_script *s, job *j, size_t index, const char *name) {
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) return 0;
    fcntl(pipe_fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(pipe_fds[1], F_SETFD, FD_CLOEXEC);
    fflush(NULL); /* or the child would write what is buffered here a second time */
    pid_t parent = getpid();
    memset(j, 0, sizeof *j);
    j->started = sbr_now();
    j->pid = fork();
    if (j->pid < 0) {
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        return 0;
    }
    if (j->pid == 0) {
        running_jobs = NULL; /* nothing of the runner's to end from here */
        close(pipe_fds[0]);
        sbr_scenario_process(s, index, name, pipe_fds[1], parent);
        _exit(SBR_STUCK_EXIT); /* not reached */
    }
    close(pipe_fds[1]);
    j->fd = pipe_fds[0];
    /* The child's watchdog ends it at its timeout plus the grace; the
     * parent waits a little longer before it does so itself. */
    double timeout = s->config.timeout_seconds;
    double left = timeout > s->spent ? timeout - s->spent : 0;
    if (timeout > 0) j->deadline = j->started + left + s->guard.grace + BACKSTOP_SECONDS;
    return 1;
}

/* A scenario waiting for its turn: what it sent goes to its spool once
 * past SPILL_AT (it stays in memory if no file can be made). */
static void spill(job *j) {
    size_t held = j->inbox.used - j->inbox.start;
    if (held <= SPILL_AT) return;
    if (j->spool == NULL && (j->spool = tmpfile()) == NULL) return;
    long before = ftell(j->spool);
    if (fwrite(j->inbox.data + j->inbox.start, 1, held, j->spool) == held) {
        j->inbox.start = j->inbox.used = 0;
    } else if (before >= 0) { /* a disk full: the bytes stay in memory, the spool as it was */
        fflush(j->spool);
        if (ftruncate(fileno(j->spool), before) != 0 || fseek(j->spool, before, SEEK_SET) != 0) {
            clearerr(j->spool);
        }
    }
}

static void take_records(sbr_script *s, job *j);

/* The head's records, those spooled first (in the order they came). */
static void take_head(sbr_script *s, job *j) {
    if (j->spool != NULL) {
        /* What came after the spool goes to its end: then the spool holds
         * everything, in order, and is read back through the inbox. */
        size_t held = j->inbox.used - j->inbox.start;
        if (held > 0 && fwrite(j->inbox.data + j->inbox.start, 1, held, j->spool) == held) {
            j->inbox.start = j->inbox.used = 0;
        }
        FILE *spool = j->spool;
        j->spool = NULL;
        /* Else (a disk full) what was spooled is dropped: the rest does not
         * read as a report, and the scenario is reported so. */
        if (j->inbox.used == j->inbox.start) {
            char chunk[65536];
            size_t n;
            rewind(spool);
            while ((n = fread(chunk, 1, sizeof chunk, spool)) > 0 && sbr_inbox_put(&j->inbox, chunk, n)) {
                take_records(s, j);
            }
        }
        fclose(spool);
    }
    take_records(s, j);
}

/* The head's whole records: trace lines to config->trace as they come (a
 * later scenario's wait for their turn), then its report. */
static void take_records(sbr_script *s, job *j) {
    char kind;
    const char *payload;
    size_t length;
    while (!j->reported && sbr_inbox_take(&j->inbox, &kind, &payload, &length)) {
        if (kind == SBR_RECORD_TRACE && length > 0 && s->config.trace != NULL) {
            s->config.trace(s->config.trace_context, payload, length - 1);
        } else if (kind == SBR_RECORD_RESULT) {
            if (!sbr_channel_decode_result(payload, length, &j->result)) {
                j->result.outcome = SBR_ERROR;
                j->result.message = sbr_strdup("the scenario's process sent a report that does not read");
            }
            j->reported = 1;
        }
    }
}

/* After the pipe ended: the child is ending, or closed the pipe and goes
 * on (then it is waited for, round by round). */
static void after_end_of_pipe(job *j) {
    for (int i = 0; i < 1000 && !reap(j, WNOHANG); i++) sched_yield(); /* its exit is under way */
}

/* One round over the running jobs [from, to): ends those past their
 * deadline, reads what came (waiting up to a second for anything), reaps
 * those that ended. */
static void service(job *jobs, size_t from, size_t to, struct pollfd *ready, size_t *which) {
    size_t polled = 0;
    int wait_ms = 1000;
    double now = sbr_now();
    for (size_t i = from; i < to; i++) {
        job *j = &jobs[i];
        if (j->reaped && j->fd < 0) continue;
        if (!j->reaped && j->deadline > 0) {
            double left = j->deadline - now;
            if (left <= 0) {
                end_group(j);
                j->killed = 1;
                close_pipe(j);
                (void)reap(j, 0);
                continue;
            }
            if (left < 1) wait_ms = (int)(left * 1000) + 1;
        }
        if (j->fd >= 0) {
            ready[polled] = (struct pollfd){.fd = j->fd, .events = POLLIN};
            which[polled++] = i;
        } else if (wait_ms > 20) {
            wait_ms = 20; /* a child that closed its pipe and goes on: looked for often */
        }
    }
    int n = poll(ready, (nfds_t)polled, wait_ms);
    for (size_t k = 0; n > 0 && k < polled; k++) {
        if (ready[k].revents == 0) continue;
        job *j = &jobs[which[k]];
        int got = sbr_inbox_read(&j->inbox, j->fd);
        if (got > 0 && which[k] != from) spill(j); /* not the head: it waits for its turn */
        if (got < 0) end_group(j); /* a stream that is not ours */
        if (got <= 0) {
            close_pipe(j);
            after_end_of_pipe(j);
        }
    }
    /* A child that ended while a process it started holds its pipe open:
     * what it sent is read, and the pipe let go. */
    for (size_t i = from; i < to; i++) {
        job *j = &jobs[i];
        if (j->reaped && j->fd < 0) continue;
        if (reap(j, WNOHANG) && j->fd >= 0) {
            struct pollfd one = {.fd = j->fd, .events = POLLIN};
            while (poll(&one, 1, 0) > 0 && sbr_inbox_read(&j->inbox, j->fd) > 0) {
                if (i != from) spill(j);
            }
            close_pipe(j);
        }
    }
}

/* A signal that stops the run (^C, kill, a closed report pipe: see
 * signals.c) ends the running scenarios' groups at once: their processes
 * would die with the runner anyway (PR_SET_PDEATHSIG), what they started
 * would not. From the handler: kill only. */
void sbr_jobs_end_running(void) {
    job *all = running_jobs;
    for (size_t i = running_from; all != NULL && i < running_to; i++) {
        if (all[i].pid > 0 && !all[i].reaped) (void)kill(-all[i].pid, SIGKILL);
    }
}

static void conclude(const sbr_script *s, job *j, const char *name);

/* After a signal stopped the run: the scenarios started [head, next) are
 * ended and reported in their order, each from its own report if it sent
 * one before it was ended, else as interrupted. Returns `next`. */
static size_t report_interrupted(sbr_script *s, job *all, size_t head, size_t next, const char *const *names,
                                 sbr_report_fn report, void *context) {
    for (size_t i = head; i < next; i++) {
        if (!all[i].reaped) end_group(&all[i]); /* started after the handler ran, or not yet in its own group */
    }
    for (size_t i = head; i < next; i++) {
        job *j = &all[i];
        /* What it sent before it was ended is in its pipe: read to the end,
         * a second at most (a process it started may hold the pipe). */
        double until = sbr_now() + 1;
        while (j->fd >= 0 && sbr_now() < until) {
            struct pollfd one = {.fd = j->fd, .events = POLLIN};
            if (poll(&one, 1, 100) > 0 && sbr_inbox_read(&j->inbox, j->fd) <= 0) close_pipe(j);
        }
        close_pipe(j);
        (void)reap(j, 0);
        take_head(s, j);
        conclude(s, j, names[i]);
        report(context, i, &j->result);
        sbr_result_clear(&j->result);
        sbr_inbox_free(&j->inbox);
    }
    return next;
}

static void set_message(sbr_result *r, sbr_outcome outcome, const char *message) {
    r->outcome = outcome;
    free(r->message);
    r->message = sbr_strdup(message);
}

/* The result of a job that ended: its report, or how it ended. */
static void conclude(const sbr_script *s, job *j, const char *name) {
    sbr_result *r = &j->result;
    if (!j->reported && sbr_interrupted() != 0) {
        char message[160];
        int signal = sbr_interrupted();
        snprintf(message, sizeof message, "interrupted by signal %d (%s) while it ran: the run was stopped, and "
                 "the scenario's process ended", signal, sbr_signal_name(signal));
        set_message(r, SBR_INTERRUPTED, message);
    } else if (!j->reported) {
        double timeout = s->config.timeout_seconds, grace = s->guard.grace;
        double left = timeout > s->spent ? timeout - s->spent : 0;
        char message[300];
        int stuck = j->killed || (WIFEXITED(j->status) && WEXITSTATUS(j->status) == SBR_STUCK_EXIT && timeout > 0
                                  && j->ended - j->started >= left + grace);
        if (stuck) {
            snprintf(message, sizeof message,
                     "still running %g s past the timeout of %g s (--timeout), in code no limit can interrupt "
                     "(a C function?): its process was ended (--grace)", grace, timeout);
            set_message(r, SBR_LIMIT, message);
        } else if (WIFSIGNALED(j->status)) {
            int signal = WTERMSIG(j->status);
            snprintf(message, sizeof message, "the scenario's process was ended by signal %d (%s): it crashed",
                     signal, strsignal(signal));
            set_message(r, SBR_ERROR, message);
        } else if (WIFEXITED(j->status) && WEXITSTATUS(j->status) == SBR_UNREPORTED_EXIT) {
            set_message(r, SBR_ERROR, "the scenario's process could not send its report: its pipe to the runner "
                                      "was closed or broken (by a plugin?)");
        } else {
            snprintf(message, sizeof message, "the scenario's process exited with status %d before it reported",
                     WIFEXITED(j->status) ? WEXITSTATUS(j->status) : -1);
            set_message(r, SBR_ERROR, message);
        }
    }
    free(r->name);
    r->name = sbr_strdup(name);
    r->seconds = j->ended - j->started;
}

/* Every scenario gets the problem of a top level that did not run. */
static size_t report_problem(sbr_script *s, const size_t *indices, const char *const *names, size_t count,
                             sbr_report_fn report, void *context) {
    (void)indices;
    for (size_t i = 0; i < count; i++) {
        sbr_result r;
        memset(&r, 0, sizeof r);
        r.outcome = s->problem.outcome;
        r.message = sbr_strdup(s->problem.message);
        r.where = sbr_strdup(s->problem.where);
        r.traceback = sbr_strdup(s->problem.traceback);
        r.name = sbr_strdup(names[i]);
        report(context, i, &r);
        sbr_result_clear(&r);
    }
    return count;
}

size_t sbr_script_run_jobs(sbr_script *s, const size_t *indices, const char *const *names, size_t count,
                           unsigned jobs, sbr_report_fn report, void *context) {
    if (s == NULL || indices == NULL || names == NULL || report == NULL || count == 0) return 0;
    if (sbr_interrupted() != 0) return 0;
    if (!s->ready) return report_problem(s, indices, names, count, report, context);
    int single = sbr_settle_threads();
    if (single != 1) {
        static char why[600];
        if (single < 0) {
            snprintf(why, sizeof why, "the runner could not tell that it runs one thread only (/proc/self/stat: %s)",
                     strerror(errno));
        } else {
            char threads[450];
            sbr_describe_threads(threads, sizeof threads);
            snprintf(why, sizeof why, "after the script's top level %s; a process forked now would hold only this one",
                     threads);
        }
        s->not_forked = why;
        return 0;
    }
    if (jobs == 0) jobs = 1;
    size_t ahead = (size_t)jobs * AHEAD_PER_JOB;
    job *all = calloc(count, sizeof *all);
    struct pollfd *ready = calloc(ahead, sizeof *ready);
    size_t *which = calloc(ahead, sizeof *which);
    if (all == NULL || ready == NULL || which == NULL) {
        free(all);
        free(ready);
        free(which);
        s->not_forked = "out of memory";
        return 0;
    }
    size_t head = 0, next = 0;
    int refused = 0; /* the last start failed: wait for the running ones */
    s->not_forked = NULL;
    running_jobs = all;
    running_from = running_to = 0;
    int was_reaper = sbr_reaper_begin();
    while (head < count && sbr_interrupted() == 0) {
        size_t running = 0; /* started, not ended (those waiting for their turn do not count) */
        size_t waiting_bytes = 0; /* what later scenarios sent that waits for its turn */
        for (size_t i = head; i < next; i++) {
            running += !(all[i].reaped && all[i].fd < 0);
            if (i > head) waiting_bytes += all[i].inbox.used;
        }
        while (!refused && running < jobs && next < count && next < head + ahead && waiting_bytes < WAITING_LIMIT) {
            if (!start(s, &all[next], indices[next], names[next])) {
                refused = 1;
                break;
            }
            next++;
            running_to = next;
            running++;
        }
        if (head == next) { /* nothing runs, and nothing could be started */
            s->not_forked = "a process could not be made for it (pipe or fork failed)";
            break;
        }
        service(all, head, next, ready, which);
        take_head(s, &all[head]);
        while (head < next && all[head].reaped && all[head].fd < 0) {
            job *j = &all[head];
            take_head(s, j);
            conclude(s, j, names[head]);
            report(context, head, &j->result);
            sbr_result_clear(&j->result);
            sbr_inbox_free(&j->inbox);
            head++;
            running_from = head;
            refused = 0;
            if (head < next) take_head(s, &all[head]); /* its trace lines waited for their turn */
        }
    }
    if (sbr_interrupted() != 0) head = report_interrupted(s, all, head, next, names, report, context);
    sbr_reaper_end(was_reaper);
    running_jobs = NULL;
    for (size_t i = head; i < next; i++) { /* left when forking failed: nothing waits for them */
        if (all[i].spool != NULL) fclose(all[i].spool);
        sbr_inbox_free(&all[i].inbox);
    }
    free(all);
    free(ready);
    free(which);
    return head;
}

const char *sbr_script_not_forked(const sbr_script *s) {
    return s != NULL ? s->not_forked : NULL;
}
