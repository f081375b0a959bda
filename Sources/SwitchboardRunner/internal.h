/* Shared between the runner's C files. */
#ifndef SWITCHBOARD_RUNNER_INTERNAL_H
#define SWITCHBOARD_RUNNER_INTERNAL_H

#include <pthread.h>
#include <sys/types.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "switchboard_lua.h"
#include "switchboard_runner.h"

/* Memory for the Lua state scenarios are forked from (arena.c): chunks
 * that may be huge pages, so that a fork copies little of it. */
typedef struct sbr_arena sbr_arena;
/* `cap`: the most bytes its chunks may hold (0: no limit); past it, blocks
 * come from malloc. */
sbr_arena *sbr_arena_new(size_t cap);
/* In a scenario's process: new blocks come from malloc from now on. */
void sbr_arena_seal(sbr_arena *a);
/* lua_Alloc's work without the accounting: `old` is 0 for a new block. */
void *sbr_arena_resize(sbr_arena *a, void *block, size_t old, size_t size);
void sbr_arena_free(sbr_arena *a);

/* The limits of one Lua state; the allocator's userdata. */
typedef struct sbr_guard {
    lua_State *L; /* set once the state exists: a trip makes every instruction fail */
    sbr_arena *arena; /* where its memory comes from; NULL: malloc */
    size_t in_use, max_memory; /* in_use includes `charged` */
    size_t charged; /* what the library holds for the state (sbr_guard_charge) */
    size_t refused_size; /* the last allocation refused, 0 after one succeeds */
    uint64_t instructions, max_instructions;
    uint64_t after; /* instructions run since relaxed */
    double timeout, grace, started, deadline;
    int relaxed; /* the scenario is over: no hook, memory for the report */
    int nudged; /* set (atomically) by the watchdog at the timeout */
    int tripped;
    int interrupted; /* it tripped because a signal stopped the run */
    char message[200];
    char where[200]; /* "file:line" running when the limit stopped it */
} sbr_guard;

typedef struct sbr_watchdog {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct timespec nudge_at, until; /* the timeout; the timeout plus the grace */
    lua_State *L; /* and its guard: NULL once the state is forgotten */
    sbr_guard *guard;
    int active, done;
    int quiet; /* in a scenario's own process: past the grace, end it silently */
    double grace;
    int report_fd;
    char what[600]; /* what it says when it ends the run: made at start */
} sbr_watchdog;

double sbr_now(void);
/* `arena`: where the state's memory comes from (NULL: malloc); the guard
 * does not own it. */
void sbr_guard_init(sbr_guard *g, const sbr_config *config, sbr_arena *arena);
void *sbr_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/* Starts the clock and the instruction count (the hook). */
void sbr_guard_arm(sbr_guard *g, lua_State *L);
/* Restarts the clock of an armed guard, `spent` seconds ago (in a
 * scenario's process: what the top level took counts, as it always did);
 * the instruction count and the memory in use go on from where they were. */
void sbr_guard_resume(sbr_guard *g, double spent);
/* Makes every coroutine of the state count against its one instruction
 * budget (wraps coroutine.create and coroutine.wrap). */
void sbr_guard_coroutines(lua_State *L);
/* Makes xpcall call no message handler of the script once a limit tripped
 * (a handler runs where Lua calls no hook). After the scenario API has
 * captured the original. */
void sbr_guard_handlers(lua_State *L);
/* The state's sb_lua_set_charge function (`ud` is the guard): memory the
 * library holds on the state's behalf counts against --max-memory. */
int sbr_guard_charge(void *ud, long long bytes);
/* Ends the scenario's limits on `L` once it is over; what runs after it
 * (the report, finalizers) has a budget of its own. */
void sbr_guard_relax(sbr_guard *g, lua_State *L);
/* Waits until `fd` (sb.fd()) is readable, within the scenario's timeout:
 * past it (or nudged), trips the limit and raises it. */
int sbr_guard_wait(sbr_guard *g, lua_State *L, int fd);
/* wait(fd) in Lua: sbr_guard_wait with the state's own guard (the
 * allocator's userdata); the runner's helpers.wait and the replay's. */
int sbr_lua_wait(lua_State *L);
/* The message of the limit that stopped the state, or NULL. */
const char *sbr_guard_tripped(const sbr_guard *g);
/* Where the tripped state was stopped ("file:line"), or NULL. */
const char *sbr_guard_where(const sbr_guard *g);

/* isolation.c: closes every descriptor but the standard ones and `channel`. */
void sbr_close_descriptors_except(int channel);
/* publish.c: in a child process, the parent's report files are not its to rename. */
void sbr_outputs_forget_all(void);
/* guard.c: 1 in a child process of replay: every watchdog ends the process
 * silently past the grace (SBR_STUCK_EXIT), its parent reports it. */
extern int sbr_watchdogs_quiet;

/* signals.c, in a scenario's own process: the default dispositions again
 * (a signal ends that process, and its parent reports how). */
void sbr_signals_default(void);
/* signals.c: "SIGINT" for the signals that stop a run (strsignal's text
 * for others), as the command names them. */
const char *sbr_signal_name(int signal);
/* jobs.c, from a signal handler: ends the running scenarios' groups. */
void sbr_jobs_end_running(void);

/* reaper.c: what a scenario starts ends with it, in whatever process
 * group or session it went (Linux: child subreapers). While scenarios run,
 * the runner is a subreaper (begin returns what it was, for end); a
 * scenario's process is one from its start; after a scenario's process is
 * reaped, the sweep ends and reaps every child of the runner outside its
 * own session that `is_scenario` does not claim. */
int sbr_reaper_begin(void);
void sbr_reaper_end(int previous);
void sbr_reaper_scenario(void);
void sbr_reaper_sweep(int (*is_scenario)(pid_t pid, void *context), void *context);

/* How a scenario's process ends when its watchdog gives up on it. */
#define SBR_STUCK_EXIT 3

/* At the timeout, nudges the state; past the grace, writes "Bail out!" to
 * report_fd and ends the whole run (exit status 3). */
int sbr_watchdog_start(sbr_watchdog *w, sbr_guard *g, int report_fd, const char *script, const char *name);
/* The same in a scenario's own process, with `spent` seconds of the timeout
 * used already: past the grace it ends that process only, silently, with
 * SBR_STUCK_EXIT (the parent reports the scenario and the run goes on). */
int sbr_watchdog_start_quiet(sbr_watchdog *w, sbr_guard *g, double spent);
/* Before the state is closed: the watchdog must not touch it any more. */
void sbr_watchdog_forget_state(sbr_watchdog *w);
void sbr_watchdog_stop(sbr_watchdog *w);

/* The sandbox (see sandbox.c): sbr_sandbox on a state with the standard
 * libraries, sbr_sandbox_module with the module table at the top. */
void sbr_sandbox(lua_State *L);
void sbr_sandbox_module(lua_State *L);

/* Pushes the methods every file handle shares (the __index of the io
 * library's handles: io.stdout's write is one), or nil: the prelude bounds
 * what a scenario writes to the standard streams through them. */
void sbr_push_file_methods(lua_State *L);

/* A new state with the sandbox, the module bound to `m` (package.loaded and
 * the global `sb`) and sb.path set from the target directories. Runs
 * protected: raises on failure. */
void sbr_prepare_state(lua_State *L, const sbr_config *config, sb_mediator *m);

/* A fresh mediator with the configured plugins; NULL with *error set
 * (malloc'd) when one does not load. */
sb_mediator *sbr_new_mediator(const sbr_config *config, char **error);

/* isolation.c: what a scenario's process stops sharing with the runner. */
typedef struct sbr_descriptor {
    int fd;
    int flags;    /* a regular file's F_GETFL */
    off_t offset; /* a regular file's position; -1: not a regular file */
} sbr_descriptor;
typedef struct sbr_descriptors {
    sbr_descriptor *items;
    size_t count, capacity;
    int failed;
} sbr_descriptors;
/* The descriptors open now, past standard error. */
void sbr_descriptors_snapshot(sbr_descriptors *d);
/* Keeps in *now those not in *before, with each regular file's position. */
void sbr_descriptors_opened_since(sbr_descriptors *now, const sbr_descriptors *before);
void sbr_descriptors_free(sbr_descriptors *d);
/* On a new state (sbr_prepare_state): math.randomseed() draws a fresh seed;
 * os.exit raises unless in a scenario's process. */
void sbr_isolation_prepare_state(lua_State *L);
void sbr_isolation_guard_exit(lua_State *L);
/* In a scenario's process, first: a session of its own; the files the top
 * level opened (`opened`) reopened where it left them; every other
 * descriptor but the standard ones and `channel` closed; a fresh seed. */
void sbr_isolate_scenario_process(const sbr_descriptors *opened, int channel, lua_State *L);
/* 1 in a scenario's own process. */
extern int sbr_in_scenario_process;
/* 1 once the script called math.randomseed with a seed of its own. */
extern int sbr_seeded_by_script;

/* A script prepared once (see script.c): a mediator and a state in which
 * the scenario API and the script's top level have run, never used again
 * by the process that made it, only copied (forked) for each scenario. */
struct sbr_script {
    sbr_config config;   /* a copy; in a scenario's process its trace goes to `channel` */
    char *script;
    sb_mediator *m;
    lua_State *L;
    sbr_guard guard;     /* the allocator's userdata: stays at this address */
    int ready;           /* 0: `problem` says why the top level did not run */
    sbr_result problem;
    double spent;        /* seconds the top level took: charged to each scenario */
    int channel;         /* in a scenario's process: the pipe to the parent */
    sbr_watchdog watchdog; /* in a scenario's process: watches it until it ends */
    sbr_descriptors opened; /* what the top level left open */
    const char *not_forked; /* why the last scenario ran in this process, or NULL */
    char *top_output;    /* what the top level wrote (print, io.write), or NULL */
    int finished;        /* sbr_script_finish ran */
};

/* script.c: 1 when this process runs one thread only (Linux:
 * /proc/self/stat): only then is a fork a whole copy. 0 when more run; -1
 * when it cannot be told (errno says why). */
int sbr_single_threaded(void);
/* script.c: sbr_single_threaded, after asking the library's own threads
 * to exit if they are idle (sb__own_threads_settle): 1, 0 or -1 as it. */
int sbr_settle_threads(void);
/* script.c: the threads running besides this one, for a message: how
 * many, by name (/proc/self/task/N/comm), each the library's own ("sb-")
 * or not. */
void sbr_describe_threads(char *out, size_t size);
/* script.c, in a forked child: runs scenario `index` in its copy of the
 * prepared state, sends its report up `channel`, and ends the process. */
void sbr_scenario_process(sbr_script *s, size_t index, const char *name, int channel, pid_t parent);
/* How a scenario's process ends when its report could not be sent. */
#define SBR_UNREPORTED_EXIT 4

/* runner.c: the state of `s` (s->ready, or s->problem). */
void sbr_script_prepare(sbr_script *s);
/* runner.c: runs scenario `index` in the prepared state (the caller's copy
 * of it: a scenario's process). Fills *result, which starts cleared. */
void sbr_script_run_here(sbr_script *s, size_t index, const char *name, sbr_result *result);
/* runner.c: runs the after_all hooks in the prepared state; 0 with *problem. */
int sbr_script_after_all(sbr_script *s, sbr_result *problem);
/* runner.c: closes the prepared state, under a watchdog (finalizers run). */
void sbr_script_close_state(sbr_script *s);

/* channel.c: what a scenario's process tells its parent, as records on a
 * pipe: a kind byte, an 8-byte length, the payload. */
#define SBR_RECORD_TRACE 'T'  /* one --trace line, with its NUL */
#define SBR_RECORD_RESULT 'R' /* the report: the last record */
int sbr_channel_send(int fd, char kind, const void *payload, size_t length);
int sbr_channel_send_result(int fd, const sbr_result *result);

/* The parent's side: bytes in, whole records out. */
typedef struct sbr_inbox {
    char *data;
    size_t start, used, capacity; /* unread bytes are data[start, used) */
} sbr_inbox;
/* Reads what `fd` has (one read). 1: bytes came; 0: end of file; -1: an
 * error (or a record too big to be one of ours). */
int sbr_inbox_read(sbr_inbox *in, int fd);
/* Appends bytes as if read; 0 when out of memory. */
int sbr_inbox_put(sbr_inbox *in, const char *bytes, size_t length);
/* The next whole record, or 0. The payload stays valid until the next call. */
int sbr_inbox_take(sbr_inbox *in, char *kind, const char **payload, size_t *length);
void sbr_inbox_free(sbr_inbox *in);
/* Fills *result (cleared first; its name stays NULL) from a result record.
 * 0 when the record is malformed. */
int sbr_channel_decode_result(const char *payload, size_t length, sbr_result *result);

char *sbr_strdup(const char *s);
/* Copies `text` into `out` (`size` bytes, NUL-terminated, cut between
 * characters) with every control character a terminal acts on shown as an
 * escape, as the command's reports show them: C0 but tab, and DEL, as \x1b;
 * C1 (U+0080..U+009F in UTF-8) as \u{9b}. For names and paths written to a
 * terminal or a report from C. */
void sbr_visible(const char *text, char *out, size_t size);
/* The most bytes of one text a report keeps (a message, a traceback): a
 * scenario can raise an error of any size, the runner must not pay for it. */
#define SBR_TEXT_LIMIT ((size_t)128 << 10) /* above the prelude's output limit */
/* A malloc'd copy of the string (or number) at `idx` for a report, always
 * UTF-8: a NUL byte becomes the two characters \0 instead of ending it, a
 * byte that is not part of a UTF-8 sequence the four characters \xHH; past
 * SBR_TEXT_LIMIT bytes it is cut (between characters), saying how much was.
 * NULL if it is neither, or on allocation failure. */
char *sbr_copy_text(lua_State *L, int idx);

/* session.c, replay.c: what `switchboard call`, `routes` and `replay` run in. */
struct sbr_session {
    sbr_config config; /* a copy: the caller's struct may go, what it points to stays */
    sb_mediator *m;
    lua_State *L;
    sbr_guard guard;
    sbr_watchdog watchdog; /* for C code that never returns (a plugin, a stdlib loop) */
};

#endif
