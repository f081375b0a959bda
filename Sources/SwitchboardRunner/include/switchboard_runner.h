/*
 * switchboard_runner.h — runs Lua scenario scripts for the `switchboard`
 * command, in Lua states that untrusted scripts cannot escape or exhaust.
 * Internal to the command: not installed, not part of the C contract.
 *
 * Isolation: a script's top level runs in a fresh Lua state bound to a
 * fresh mediator (the plugins are loaded into it, the Lua target
 * directories put on sb.path) once to list its scenarios, and once more to
 * prepare them (sbr_script_open). Each scenario then runs in a process of
 * its own, forked from the prepared one: it starts from a copy of that
 * state, and what it registers, caches, loads or breaks, up to a crash,
 * ends with its process. Where forking is not safe (another thread is
 * running: fork copies only the calling one) or fails, the scenario runs
 * the old way, in this process, in a fresh state where the top level runs
 * again (sbr_run, which the caller calls when sbr_script_run_jobs says so).
 *
 * Limits, each per scenario: wall-clock time and VM instructions (a count
 * hook on every coroutine, one budget for all), memory (a lua_Alloc that
 * refuses past the limit, charged also with what the library keeps for the
 * state: sb_lua_set_charge). A limit that
 * trips stops the scenario with a message naming it. Code that never returns
 * to Lua (a C function stuck in a loop) cannot be stopped by a hook: past its
 * timeout plus a grace period a watchdog ends the scenario's process (the
 * scenario is reported, the run goes on) or, where the code runs in this
 * process (a top level, the old way), the whole run (exit status 3, with a
 * TAP "Bail out!" line), so an unattended run always ends.
 *
 * Sandbox, unless allow_os: os.execute, io.popen, os.exit, package.loadlib,
 * debug.sethook and sb.load_plugin raise an error; C modules cannot be
 * required; load, loadfile, dofile and require accept source text only
 * (precompiled chunks can corrupt memory); every file is opened through
 * sb__file_open (switchboard_file.h): regular files on ordinary file
 * systems only, never a FIFO or a /proc file.
 *
 * All functions run on the calling thread, which owns the Lua state.
 */
#ifndef SWITCHBOARD_RUNNER_H
#define SWITCHBOARD_RUNNER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "switchboard.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sbr_config {
    const char *const *plugins; /* C plugins loaded into every scenario's mediator */
    size_t plugin_count;
    const char *const *target_dirs; /* directories of Target_<Name>.lua files */
    size_t target_dir_count;
    double timeout_seconds;     /* per scenario; 0 for none */
    uint64_t max_instructions;  /* per scenario; 0 for none */
    size_t max_memory_bytes;    /* per scenario Lua state; 0 for none */
    double grace_seconds;       /* past the timeout, before the watchdog ends the run */
    int allow_os;               /* 1: no sandbox */
    int coverage;               /* 1: results list the actions called (sbr_result.calls) */
    const char *prelude;        /* the scenario API (Lua source, see ScenarioAPI.swift) */
    size_t prelude_length;
    /* Called with each --trace line (one JSON object, no newline); NULL: no tracing. */
    void (*trace)(void *context, const char *line, size_t length);
    void *trace_context;
    int report_fd;              /* where the watchdog writes its "Bail out!" line */
} sbr_config;

typedef enum sbr_outcome {
    SBR_PASSED = 0,
    SBR_FAILED,  /* an expectation did not hold */
    SBR_ERROR,   /* a Lua error, or a script or plugin that does not load */
    SBR_LIMIT,   /* a limit stopped it */
    SBR_INTERRUPTED, /* a signal stopped the run while it ran (sbr_interrupted) */
    SBR_SKIPPED, /* it called skip(reason): `message` is the reason */
} sbr_outcome;

typedef struct sbr_step {
    char *name;
    char *status; /* "passed", "failed" */
    double seconds;
} sbr_step;

/* What one scenario did. Strings are malloc'd (free with sbr_result_clear);
 * any of them may be NULL. */
typedef struct sbr_result {
    sbr_outcome outcome;
    char *name;
    char *message;   /* why it did not pass */
    char *where;     /* "file:line" of the failing expectation or the error */
    char *step;      /* the step that failed */
    char *traceback; /* for errors */
    char *output;    /* what print and io.write wrote while it ran */
    char *calls;     /* with config->coverage: what it called, a line each:
                        "called" or "fallback", target, action, tab-separated */
    sbr_step *steps;
    size_t step_count;
    size_t expectations; /* how many matchers it called (expect(...).to_...) */
    double seconds;
} sbr_result;

/* A scenario as its script defines it (scenario(name, {tags, skip, todo}, fn)). */
typedef struct sbr_listed {
    char *name;
    char *tags; /* its tags, each followed by a newline ("slow\nnet\n"); NULL: none */
    char *skip; /* why it is skipped ("" when no reason is given); NULL: it runs */
    char *todo; /* why it is todo (likewise); NULL: it is not */
} sbr_listed;

/* Lists the scenarios `script` defines into *scenarios (malloc'd; free with
 * sbr_listed_free). Returns 1; or 0 with `problem` describing why the script
 * does not load (syntax error, error at its top level, a plugin that does not
 * load), as a failed result named after the script. The top level runs
 * without its standard error (what it writes there goes to `problem`'s
 * output, if it does not load): sbr_script_open runs it again and shows it. */
int sbr_list(const sbr_config *config, const char *script, sbr_listed **scenarios, size_t *count, sbr_result *problem);
void sbr_listed_free(sbr_listed *scenarios, size_t count);

/* Runs scenario `index` (0-based, in definition order) of `script`, which
 * must still be named `name`, in a fresh state and mediator. Fills *result. */
void sbr_run(const sbr_config *config, const char *script, size_t index, const char *name, sbr_result *result);
void sbr_result_clear(sbr_result *result);

/* A script prepared to run its scenarios: its top level has run once, in a
 * state that each scenario gets a copy of (a forked process). */
typedef struct sbr_script sbr_script;

/* Runs the top level of `script` once, then its before_all hooks. NULL
 * only when out of memory; a script that does not load (or a plugin, or a
 * before_all that fails) is reported by each sbr_script_run_jobs, as
 * sbr_run would. The script copies *config; the strings it points to must
 * outlive it. Under the watchdog, like a scenario. */
sbr_script *sbr_script_open(const sbr_config *config, const char *script);
/* What the top level (and before_all) wrote with print and io.write, or NULL. */
const char *sbr_script_top_output(const sbr_script *s);
/* Runs the script's after_all hooks in the prepared state (after its last
 * scenario), under the watchdog and the limits of a scenario. Returns 1
 * (also when there are none, or the top level did not run), or 0 with
 * *problem (cleared first) saying why they failed; either way
 * problem->output is what they wrote (print, io.write), or NULL. */
int sbr_script_finish(sbr_script *s, sbr_result *problem);
/* Called with each scenario's result, in the order given (`position`);
 * the callee may take what *result holds (setting its pointers to NULL),
 * the rest is freed after it returns. */
typedef void (*sbr_report_fn)(void *context, size_t position, sbr_result *result);
/* Runs scenarios indices[i] (0-based, each still named names[i]; i < count)
 * in processes forked from the prepared state, up to `jobs` at once (0: 1),
 * and reports each through `report`, in the order given, as soon as it and
 * those before it are done: from what it reported, or from how its process
 * ended (a crash, an exit, or the watchdog: stuck past its timeout and
 * grace). --trace lines come to config->trace as the scenarios make them,
 * in the same order (a later scenario's wait for their turn). Returns how
 * many were run and reported: fewer than count when forking is not safe
 * (another thread is running) or fails; run the rest, from that position,
 * with sbr_run, and see sbr_script_not_forked for why. */
size_t sbr_script_run_jobs(sbr_script *s, const size_t *indices, const char *const *names, size_t count,
                           unsigned jobs, sbr_report_fn report, void *context);
/* Why the last sbr_script_run_jobs did not run them all (a sentence,
 * static), or NULL. */
const char *sbr_script_not_forked(const sbr_script *s);
/* Closes the prepared state (finalizers run, under the watchdog); NULL is
 * accepted. */
void sbr_script_close(sbr_script *s);

/* Keeps reports apart from what plugins print: returns a new descriptor for
 * the original standard output, and makes descriptor 1 (and the C stdout
 * stream, line-buffered) go to standard error. -1 if it cannot. Call it
 * before anything is written to stdout. */
int sbr_take_stdout(void);

/* Makes standard input /dev/null: an unattended run never waits on a
 * terminal (io.read() in a script, a plugin reading stdin). */
void sbr_detach_stdin(void);

/* SIGINT, SIGTERM, SIGHUP and SIGPIPE (those not ignored) stop the run
 * instead of ending it (signals.c): the running scenarios' process groups
 * are ended at once, sbr_script_run_jobs reports those that ran (a
 * scenario it ended as SBR_INTERRUPTED) and starts no more, Lua in this
 * process stops at its next instruction as if a limit had tripped
 * (SBR_INTERRUPTED), and sbr_interrupted() names the signal. The caller
 * then writes its reports and calls sbr_signals_finish. A second signal
 * ends the process at once. Call it once, before anything runs. */
void sbr_signals_watch(void);
/* The signal that stopped the run, or 0. */
int sbr_interrupted(void);
/* After the reports are written: if a signal stopped the run, ends the
 * process by that signal (its default action), as it would have been. */
void sbr_signals_finish(void);

/* Report files written under a temporary name and renamed into place when
 * done (publish.c). Registered, the watchdog renames them itself before it
 * ends the run (exit status 3). At most 8; -1 when full or too long. */
int sbr_output_register(const char *working, const char *final);
void sbr_output_forget(int slot);
/* Renames every registered file into place (async-signal-safe). */
void sbr_outputs_publish(void);

/* A state and mediator for one-off calls (switchboard call / routes), with
 * the same plugins, Lua targets, limits and sandbox. */
typedef struct sbr_session sbr_session;

/* NULL with a message in *error (malloc'd) when a plugin does not load.
 * The session copies *config; the strings it points to must outlive it. */
sbr_session *sbr_session_open(const sbr_config *config, char **error);
sb_mediator *sbr_session_mediator(sbr_session *session);
/* Registers every Target_<Name>.lua in the target directories, so that
 * listings show them. Returns 1, or 0 with a message in *error (malloc'd). */
int sbr_session_load_lua_targets(sbr_session *session, char **error);
/* Runs the Lua file at `path` in the session (registrations, routes, policy).
 * Returns 1, or 0 with a message in *error (malloc'd). */
int sbr_session_run_file(sbr_session *session, const char *path, char **error);
void sbr_session_close(sbr_session *session);

/* `switchboard replay`: runs the scenario API (config->prelude) in the
 * session for its trace writer, then `source`, the replay chunk (Lua), which
 * gets the writer and returns the function each recorded call is handed to.
 * Returns 1, or 0 with a message in *error (malloc'd). */
int sbr_session_replay_prepare(sbr_session *session, const char *source, size_t length, char **error);
/* A process of its own for one replayed scenario, forked from this one, so
 * that what the scenario's calls do (a plugin's static memory: plugins are
 * never unloaded) starts afresh, as it did when the scenario ran. In the
 * parent: the child's pid, and in *channel the read end of a pipe from it;
 * in the child: 0, *channel the write end, the descriptors but the standard
 * ones closed, a session of its own, the default signal dispositions, and
 * watchdogs that end it silently (exit status 3). -1 when it cannot be made
 * or would not be safe (another thread runs): replay in this process. */
pid_t sbr_replay_fork(int *channel);

/* Hands one trace line (valid JSON: check it first) to that function; its
 * answer, malloc'd, in *answer. Returns 1, or 0 with a message in *error
 * (malloc'd): a Lua error, or the limit that stopped it. */
int sbr_session_replay_line(sbr_session *session, const char *line, size_t length, char **answer, char **error);

#ifdef __cplusplus
}
#endif

#endif /* SWITCHBOARD_RUNNER_H */
