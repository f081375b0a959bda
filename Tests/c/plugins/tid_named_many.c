/* test_fork_ids: compiled 40 times (INDEX 0-39) into one module, which then
 * holds 40 thread-local variables named as the Swift runtime's cached
 * thread id (a name is defined once per object). */
#ifndef INDEX
#define INDEX 0
#endif
#define GETTER_(n) tid_named_##n
#define GETTER(n) GETTER_(n)

static __thread int cached_id __asm__("_swift_stdlib_gettid.tid");

int *GETTER(INDEX)(void) {
    return &cached_id;
}
