/*
 * Report files are written under a temporary name beside their own and
 * renamed into place when done (the command's AtomicFile), so that a reader
 * never finds one half written and a name that is a hard link to another
 * file is replaced, never written through. The command registers each here:
 * if the watchdog must end the run (code stuck in C in the runner's own
 * process, exit status 3), it renames them itself first, and the report so
 * far (kept whole in them) is where it belongs.
 */
#include "internal.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

#define SLOTS 8

static struct {
    volatile int used;
    char working[PATH_MAX], final[PATH_MAX];
} slots[SLOTS];

int sbr_output_register(const char *working, const char *final) {
    if (working == NULL || final == NULL || strlen(working) >= PATH_MAX || strlen(final) >= PATH_MAX) return -1;
    for (int i = 0; i < SLOTS; i++) {
        if (slots[i].used) continue;
        strcpy(slots[i].working, working);
        strcpy(slots[i].final, final);
        __atomic_store_n(&slots[i].used, 1, __ATOMIC_RELEASE);
        return i;
    }
    return -1;
}

void sbr_output_forget(int slot) {
    if (slot >= 0 && slot < SLOTS) __atomic_store_n(&slots[slot].used, 0, __ATOMIC_RELEASE);
}

void sbr_outputs_forget_all(void) {
    for (int i = 0; i < SLOTS; i++) sbr_output_forget(i);
}

void sbr_outputs_publish(void) {
    for (int i = 0; i < SLOTS; i++) {
        if (__atomic_exchange_n(&slots[i].used, 0, __ATOMIC_ACQ_REL)) (void)rename(slots[i].working, slots[i].final);
    }
}
