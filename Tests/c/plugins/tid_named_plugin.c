/* test_fork_ids: a module whose one thread-local variable has the name of
 * the Swift runtime's cached thread id, as the library looks for it. */
static __thread int cached_id __asm__("_swift_stdlib_gettid.tid");

int plugin_set(int value) {
    cached_id = value;
    return cached_id;
}

int plugin_get(void) {
    return cached_id;
}
