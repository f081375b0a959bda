/* Keeps the module and libswitchboard mapped once a Lua state opened them.
 * lua_close dlcloses the module, which let the library go with it: the
 * Swift runtime inside it (its metadata caches, lazy globals) was unmapped
 * with nothing freed, and reloaded afresh by the next state, so a host that
 * opens and closes states lost about 2 KB each time, and C code could still
 * hold a Lua function whose release lives in the module. (libswitchboard
 * as built here is linked -z nodelete and stays anyway; pinning it too
 * keeps a library built without that flag, or an older one, from going.) */
#define _GNU_SOURCE
#include "internal.h"

#include <dlfcn.h>
#include <string.h>

/* `address`'s shared object gets RTLD_NODELETE; in an executable (the
 * switchboard command) dlopen finds nothing by that name and this is a no-op. */
static void pin_object_of(const void *address) {
    Dl_info info;
    if (dladdr(address, &info) != 0 && info.dli_fname != NULL) {
        /* The reference is kept on purpose, as the flag says. */
        (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    }
}

void sb_lua_pin_libraries(void) {
    static int done;
    if (__atomic_load_n(&done, __ATOMIC_ACQUIRE)) return;
    pin_object_of(&done); /* this module */
    /* ISO C has no function-to-object pointer cast; POSIX makes them the same size. */
    const char *(*in_library)(void) = sb_version;
    const void *library_address;
    memcpy(&library_address, &in_library, sizeof library_address);
    pin_object_of(library_address);
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}
