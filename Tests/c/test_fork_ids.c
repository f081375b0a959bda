/* What the library's fork handlers (Sources/CSwitchboard/fork_ids.c) clear
 * in a child, and what they leave. They zero, in the forking thread, the
 * thread-local variables named as the Swift runtime's cached thread ids,
 * found in each module's symbol table (see test_fork_child for why).
 *
 *  - A module with such a variable, unloaded, and another loaded in its
 *    place (same address, same TLS module id): the newcomer's own variable
 *    survives the fork (a table keyed by place alone zeroed it).
 *  - Many modules with thread-local storage loaded before one that has such
 *    a variable: its variable is still found (a table of 32 modules was
 *    full before, and later modules were skipped).
 *  - A module with 40 such variables (one per object): all cleared (a
 *    module's were capped at 32).
 *  - No other thread-local variable of any module is touched.
 *
 * Arguments: the directory of the built plugins. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

enum { CANARIES = 40, CANARY = 0x12345678 };

#define CHECK_INT(actual, expected)                                                      \
    do {                                                                                \
        int check_i_ = (actual);                                                        \
        if (check_i_ != (expected)) fprintf(stderr, "%s = %#x, expected %#x\n", #actual, \
                                            (unsigned)check_i_, (unsigned)(expected));  \
        CHECK(check_i_ == (expected));                                                  \
    } while (0)

typedef int (*set_fn)(int);
typedef int (*get_fn)(void);

typedef struct {
    void *handle;
    set_fn set;
    get_fn get;
} module;

static int load(const char *path, module *m) {
    m->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (m->handle == NULL) {
        fprintf(stderr, "%s\n", dlerror());
        return 0;
    }
    void *set = dlsym(m->handle, "plugin_set"), *get = dlsym(m->handle, "plugin_get");
    memcpy(&m->set, &set, sizeof set);
    memcpy(&m->get, &get, sizeof get);
    return m->set != NULL && m->get != NULL;
}

/* The value `get` reads in a child of fork; -1 when the child failed. */
static int in_child(get_fn get) {
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int value = get();
        _exit(write(pipe_fds[1], &value, sizeof value) == (ssize_t)sizeof value ? 0 : 1);
    }
    close(pipe_fds[1]);
    int value = -1;
    if (pid < 0 || read(pipe_fds[0], &value, sizeof value) != (ssize_t)sizeof value) value = -1;
    close(pipe_fds[0]);
    int status = 0;
    if (pid > 0) waitpid(pid, &status, 0);
    return value;
}

/* The variables of tid_named_many.so, and how many of them are set. */
static int **many_variables;
static int set_in_child(void) {
    int set = 0;
    for (int i = 0; i < 40; i++) set += many_variables[i] != NULL && *many_variables[i] != 0;
    return set;
}

/* Copies `from` to `to` (dlopen loads one file once: each canary is a copy). */
static int copy_file(const char *from, const char *to) {
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    int ok = in != NULL && out != NULL;
    char buffer[1 << 14];
    size_t n;
    while (ok && (n = fread(buffer, 1, sizeof buffer, in)) > 0) ok = fwrite(buffer, 1, n, out) == n;
    if (in != NULL) fclose(in);
    if (out != NULL && fclose(out) != 0) ok = 0;
    return ok;
}

int main(int argc, char **argv) {
    CHECK(argc >= 2);
    if (argc < 2) return check_report("fork_ids");
    printf("library %s\n", sb_version()); /* the library is loaded, its handlers registered */
    char dir[] = "/tmp/sb-fork-ids-XXXXXX", path[512], canary_so[512], named_so[512];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(canary_so, sizeof canary_so, "%s/tls_canary_plugin.so", argv[1]);
    snprintf(named_so, sizeof named_so, "%s/tid_named_plugin.so", argv[1]);

    /* A module with a variable named as the runtime's cached id: cleared in
     * the child, left in the parent. */
    module named;
    CHECK(load(named_so, &named));
    CHECK(named.set(4242) == 4242);
    CHECK_INT(in_child(named.get), 0);
    CHECK_INT(named.get(), 4242);

    /* Unloaded; another module loaded in its place. */
    struct link_map *named_map = NULL;
    size_t named_id = 0;
    dlinfo(named.handle, RTLD_DI_LINKMAP, &named_map);
    dlinfo(named.handle, RTLD_DI_TLS_MODID, &named_id);
    ElfW(Addr) named_base = named_map != NULL ? named_map->l_addr : 0;
    CHECK(dlclose(named.handle) == 0);
    module newcomer;
    snprintf(path, sizeof path, "%s/newcomer.so", dir);
    CHECK(copy_file(canary_so, path));
    CHECK(load(path, &newcomer));
    unlink(path);
    struct link_map *new_map = NULL;
    size_t new_id = 0;
    dlinfo(newcomer.handle, RTLD_DI_LINKMAP, &new_map);
    dlinfo(newcomer.handle, RTLD_DI_TLS_MODID, &new_id);
    int same_place = new_map != NULL && new_map->l_addr == named_base && new_id == named_id;
    printf("newcomer %s the unloaded module's place\n", same_place ? "took" : "did not take");
    CHECK(newcomer.set(0x2468ace) == 0x2468ace);
    CHECK_INT(in_child(newcomer.get), 0x2468ace);

    /* Many modules with thread-local storage, each touched by this thread,
     * then the named one again: still found. */
    module canaries[CANARIES];
    for (int i = 0; i < CANARIES; i++) {
        snprintf(path, sizeof path, "%s/canary%d.so", dir, i);
        CHECK(copy_file(canary_so, path));
        CHECK(load(path, &canaries[i]));
        CHECK(canaries[i].get() == CANARY);
        unlink(path);
    }
    CHECK(load(named_so, &named));
    CHECK(named.set(4242) == 4242);
    CHECK_INT(in_child(named.get), 0);
    int intact = 0;
    for (int i = 0; i < CANARIES; i++) intact += in_child(canaries[i].get) == CANARY;
    CHECK_INT(intact, CANARIES);
    /* One module holding 40 such variables (a module's ids were capped at
     * 32, silently): all cleared. */
    snprintf(path, sizeof path, "%s/tid_named_many.so", argv[1]);
    module many = {dlopen(path, RTLD_NOW | RTLD_LOCAL), NULL, NULL};
    CHECK(many.handle != NULL);
    int *variables[40] = {NULL};
    for (int i = 0; many.handle != NULL && i < 40; i++) {
        char getter[32];
        snprintf(getter, sizeof getter, "tid_named_%d", i);
        void *symbol = dlsym(many.handle, getter);
        int *(*get)(void) = NULL;
        memcpy(&get, &symbol, sizeof symbol);
        variables[i] = get != NULL ? get() : NULL;
        CHECK(variables[i] != NULL);
        if (variables[i] != NULL) *variables[i] = i + 1;
    }
    many_variables = variables;
    CHECK_INT(in_child(set_in_child), 0);
    rmdir(dir);
    robustness_row("a host loads a module holding a variable named as the Swift runtime's cached thread id, forks, "
                   "unloads it and loads another in its place, forks; loads 40 modules with thread-local storage "
                   "and the named one again, forks; loads one holding 40 such variables, forks", 4,
                   "the named variable is cleared in each child, the parent's left; the newcomer's own variable "
                   "and the 40 others are left as they were (a table keyed by place cleared the newcomer's; a "
                   "table of 32 modules skipped the named one); all 40 are cleared (8 were left with 32 per module)");
    return check_report("fork_ids");
}
