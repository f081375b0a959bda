/* The per-thread error message behind sb_last_error() and sb_set_error().
 * In C because Swift cannot define a variadic function. */
#include "switchboard_internal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct error_slot {
    char *text;        /* NUL-terminated; NULL until the first error */
    size_t capacity;
};

/* Bumped by every message set on this thread. Read around every action call,
 * so it is one word of initial-exec TLS rather than a pthread key lookup. */
static __thread unsigned long generation __attribute__((tls_model("initial-exec")));

static pthread_key_t slot_key;
static pthread_once_t slot_once = PTHREAD_ONCE_INIT;

static void slot_free(void *p) {
    struct error_slot *slot = p;
    free(slot->text);
    free(slot);
}

static void slot_key_create(void) {
    (void)pthread_key_create(&slot_key, slot_free);
}

static struct error_slot *current_slot(void) {
    pthread_once(&slot_once, slot_key_create);
    struct error_slot *slot = pthread_getspecific(slot_key);
    if (slot == NULL) {
        slot = calloc(1, sizeof *slot);
        if (slot == NULL || pthread_setspecific(slot_key, slot) != 0) {
            free(slot);
            return NULL;
        }
    }
    return slot;
}

/* Room for `length` bytes plus NUL; on allocation failure the message is
 * truncated to what fits (never lost entirely if there was any room). */
static size_t reserve(struct error_slot *slot, size_t length) {
    if (length + 1 > slot->capacity) {
        char *bigger = realloc(slot->text, length + 1);
        if (bigger != NULL) {
            slot->text = bigger;
            slot->capacity = length + 1;
        }
    }
    return slot->capacity == 0 ? 0 : (length < slot->capacity ? length : slot->capacity - 1);
}

void sb__error_set(const char *message, size_t length) {
    generation++;
    struct error_slot *slot = current_slot();
    if (slot == NULL) return;
    size_t n = reserve(slot, length);
    if (slot->capacity == 0) return;
    memcpy(slot->text, message, n);
    slot->text[n] = '\0';
}

void sb_set_error(const char *fmt, ...) {
    generation++;
    struct error_slot *slot = current_slot();
    if (slot == NULL) return;
    if (fmt == NULL) fmt = "(no message)";
    va_list args;
    va_start(args, fmt);
    int needed = vsnprintf(NULL, 0, fmt, args);
    va_end(args);
    if (needed < 0) needed = 0;
    size_t n = reserve(slot, (size_t)needed);
    if (slot->capacity == 0) return;
    va_start(args, fmt);
    vsnprintf(slot->text, n + 1, fmt, args);
    va_end(args);
}

const char *sb_last_error(void) {
    pthread_once(&slot_once, slot_key_create);
    struct error_slot *slot = pthread_getspecific(slot_key);
    return slot != NULL && slot->text != NULL ? slot->text : "";
}

unsigned long sb__error_generation(void) {
    return generation;
}
