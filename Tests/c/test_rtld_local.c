/* libswitchboard.so loaded with RTLD_LOCAL (as lua5.4's require loads a C
 * module's dependencies): a plugin that links nothing must still resolve
 * sb_* from it. This program does not link the library; it opens it. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <stdio.h>

#include "check.h"

typedef sb_mediator *(*new_fn)(void);
typedef void (*free_fn)(sb_mediator *);
typedef sb_status (*load_fn)(sb_mediator *, const char *);
typedef sb_status (*perform_fn)(sb_mediator *, const char *, const char *, const sb_value *, unsigned, sb_value **);
typedef sb_status (*get_int_fn)(const sb_value *, int64_t *);
typedef void (*release_fn)(sb_value *);

/* Object pointers from dlsym become function pointers through memcpy:
 * ISO C has no cast between them. */
static void *symbol(void *lib, const char *name, void *fn_out, size_t size) {
    void *p = dlsym(lib, name);
    if (p) memcpy(fn_out, &p, size);
    return p;
}
#define LOAD(lib, var) symbol(lib, #var, &var, sizeof var)

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s PLUGIN-DIR LIBRARY\n", argv[0]);
        return 2;
    }
    char plugin[4096];
    snprintf(plugin, sizeof plugin, "%s/test_plugin.so", argv[1]);
    void *lib = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    CHECK(lib != NULL);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return check_report("rtld_local");
    }
    new_fn sb_mediator_new = NULL;
    free_fn sb_mediator_free = NULL;
    load_fn sb_plugin_load = NULL;
    perform_fn sb_action_perform = NULL;
    get_int_fn sb_value_get_int = NULL;
    release_fn sb_value_release = NULL;
    CHECK(LOAD(lib, sb_mediator_new) && LOAD(lib, sb_mediator_free) && LOAD(lib, sb_plugin_load));
    CHECK(LOAD(lib, sb_action_perform) && LOAD(lib, sb_value_get_int) && LOAD(lib, sb_value_release));
    /* The library is not in the global scope yet. */
    CHECK(dlsym(RTLD_DEFAULT, "sb_int") == NULL);

    sb_mediator *m = sb_mediator_new();
    sb_status s = sb_plugin_load(m, plugin);
    CHECK(s == SB_OK);
    sb_value *out = NULL;
    int64_t n = 0;
    CHECK(sb_action_perform(m, "Counter", "next", NULL, 0, &out) == SB_OK);
    CHECK(sb_value_get_int(out, &n) == SB_OK && n == 1);
    sb_value_release(out);
    sb_mediator_free(m);
    return check_report("rtld_local");
}
