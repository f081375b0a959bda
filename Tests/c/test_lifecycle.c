/* The life around a call: a plugin freed with its mediator while a thread
 * of its own still runs its code. The library never unloads a plugin it
 * loaded (switchboard.h, sb_plugin_load): the thread that completed a call
 * returns into plugin code, so unloading when the mediator goes would pull
 * the code from under it (it crashed about once in 5 runs of 3,000 rounds
 * with the shipped module_a.so; nearly every time with this plugin). */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

#include "check.h"

static char plugin[4096];

static void test_plugin_outlives_its_mediator(void) {
    const int rounds = 300;
    int answered = 0;
    for (int i = 0; i < rounds; i++) {
        sb_mediator *m = sb_mediator_new();
        CHECK_STATUS(sb_plugin_load(m, plugin), SB_OK);
        sb_value *out = NULL;
        sb_status s = sb_action_perform(m, "Lingering", "work", NULL, 0, &out);
        if (s == SB_OK && check_int(out) == 42) answered++;
        sb_value_release(out);
        sb_mediator_free(m);
        /* Other calls: the threads entering the library are what release
         * what the freed mediator retired (its plugin among it). */
        for (int j = 0; j < 4; j++) {
            sb_value *miss = NULL;
            (void)sb_action_perform(sb_mediator_shared(), "NoSuchTarget", "x", NULL, 0, &miss);
            sb_value_release(miss);
        }
    }
    CHECK(answered == rounds);
    /* Still mapped, and still the same code. */
    void *again = dlopen(plugin, RTLD_NOW | RTLD_NOLOAD);
    CHECK(again != NULL);
    if (again != NULL) dlclose(again);
    /* The last threads finish their plugin code before the process exits. */
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    robustness_row("Plugin freed with its mediator while its own thread, having completed a call, still runs its code",
                   rounds, "no crash: plugins stay mapped until exit (RTLD_NODELETE), their targets gone");
}

/* Threads of this process named `name` (/proc/self/task/N/comm). */
static int threads_named(const char *name) {
    DIR *tasks = opendir("/proc/self/task");
    if (tasks == NULL) return -1;
    int found = 0;
    struct dirent *task;
    while ((task = readdir(tasks)) != NULL) {
        if (task->d_name[0] == '.') continue;
        char path[300], comm[64] = {0};
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", task->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL) continue;
        if (fgets(comm, sizeof comm, f) != NULL) {
            comm[strcspn(comm, "\n")] = '\0';
            if (strcmp(comm, name) == 0) found++;
        }
        fclose(f);
    }
    closedir(tasks);
    return found;
}

static sb_completion held;
static sb_status holds(void *ud, const sb_value *params, sb_value **out) {
    (void)ud, (void)params, (void)out;
    held = sb_completion_take();
    return SB_PENDING;
}
static int done_calls;
static sb_status done_status;
static void done(void *ud, sb_status status, sb_value *result) {
    (void)ud;
    done_status = status;
    done_calls++;
    sb_value_release(result);
}

/* The watch thread that times out calls nobody waits for exits once it has
 * nothing left to watch: a host that made one such call (a forking one,
 * such as the scenario runner) is single-threaded again. It stayed for the
 * process before. */
static void test_watch_thread_exits_when_idle(void) {
    sb_mediator *m = sb_mediator_new();
    CHECK_STATUS(sb_action_register(m, "W", "hold", holds, NULL, NULL), SB_OK);
    sb_call_options timed = SB_CALL_OPTIONS_INIT;
    int rounds = 3, idle_again = 0;
    for (int round = 0; round < rounds; round++) {
        done_calls = 0;
        /* Round 1 is answered: its timeout is long, so that its thread is
         * there to see. Rounds 0 and 2 time out after 40 ms: their thread
         * may come and go before this thread looks (valgrind runs one
         * thread at a time), and the timeout's status shows that it ran. */
        timed.timeout_ms = round == 1 ? 10000 : 40;
        CHECK_STATUS(sb_action_perform_async(m, "W", "hold", NULL, &timed, done, NULL), SB_PENDING);
        struct timespec pause = {0, 10 * 1000 * 1000};
        /* The thread names itself as it starts. */
        for (int i = 0; i < 1000 && threads_named("sb-watch") == 0 && done_calls == 0; i++) nanosleep(&pause, NULL);
        if (round == 1) {
            CHECK(threads_named("sb-watch") == 1);
            CHECK_STATUS(sb_completion_succeed(held, sb_int(1)), SB_OK); /* answered, not timed out */
        } else {
            CHECK(threads_named("sb-watch") <= 1);
        }
        for (int i = 0; i < 1000 && (done_calls == 0 || threads_named("sb-watch") != 0); i++) nanosleep(&pause, NULL);
        if (threads_named("sb-watch") == 0 && done_calls == 1) idle_again++;
        CHECK_STATUS(done_status, round == 1 ? SB_OK : SB_ETIMEOUT);
        if (round != 1) CHECK_STATUS(sb_completion_succeed(held, NULL), SB_ETIMEOUT);
    }
    CHECK(idle_again == rounds);
    sb_mediator_free(m);
    robustness_row("The library's own watch thread after the last call with a timeout ended (answered or timed out)",
                   rounds, "it exits when it has nothing to watch; the next such call starts another");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s PLUGIN-DIR\n", argv[0]);
        return 2;
    }
    snprintf(plugin, sizeof plugin, "%s/lingering_plugin.so", argv[1]);
    test_plugin_outlives_its_mediator();
    test_watch_thread_exits_when_idle();
    return check_report("lifecycle");
}
