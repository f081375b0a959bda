/*
 * A signal that would end the run (SIGINT, SIGTERM, SIGHUP, a closed report
 * pipe's SIGPIPE) stops it instead, so that its reports say what finished:
 * the handler notes the signal and ends the running scenarios' process
 * groups (kill is all it may do), and the run, seeing the note, stops
 * starting scenarios, reports those that ran, marks the rest interrupted,
 * writes its report files, and then dies by the signal (sbr_signals_finish),
 * so that a shell or CI sees what ended it. Lua running in the runner's own
 * process (a top level) sees the note at its next hook (guard.c). A second
 * signal ends the run at once.
 */
#include "internal.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static const int watched[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
#define WATCHED (sizeof watched / sizeof watched[0])

static volatile sig_atomic_t noted; /* the first signal, or 0 */

static void set(int signal, void (*handler)(int)) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    sigaction(signal, &action, NULL);
}

static void on_signal(int signal) {
    int saved = errno;
    if (noted == 0) {
        noted = signal;
        sbr_jobs_end_running();
    } else if (signal != SIGPIPE) { /* the second: no more waiting */
        set(signal, SIG_DFL);
        raise(signal);
    }
    errno = saved; /* a closed pipe's SIGPIPE: the write that raised it fails with EPIPE */
}

void sbr_signals_watch(void) {
    for (size_t i = 0; i < WATCHED; i++) {
        struct sigaction previous;
        /* One the caller ignores (nohup's SIGHUP) stays ignored. */
        if (sigaction(watched[i], NULL, &previous) == 0 && previous.sa_handler == SIG_DFL) set(watched[i], on_signal);
    }
}

int sbr_interrupted(void) {
    return noted;
}

const char *sbr_signal_name(int signal) {
    switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGPIPE: return "SIGPIPE";
    default: return strsignal(signal);
    }
}

void sbr_signals_default(void) {
    noted = 0;
    for (size_t i = 0; i < WATCHED; i++) {
        struct sigaction current;
        if (sigaction(watched[i], NULL, &current) == 0 && current.sa_handler == on_signal) set(watched[i], SIG_DFL);
    }
}

void sbr_signals_finish(void) {
    int signal = noted;
    if (signal == 0) return;
    set(signal, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signal);
    sigprocmask(SIG_UNBLOCK, &only, NULL);
    raise(signal);
    _exit(128 + signal); /* not reached: its default is to end the process */
}
