/* test_fork_ids: a module with a thread-local variable of its own, which a
 * fork must leave as it is. */
static __thread int canary = 0x12345678;

int plugin_set(int value) {
    canary = value;
    return canary;
}

int plugin_get(void) {
    return canary;
}
