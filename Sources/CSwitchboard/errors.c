/* The per-thread error message behind sb_error_message() and sb_error_set().
 * In C because Swift cannot define a variadic function. */
#include "switchboard_internal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct error_slot {
    char *text;        /* NUL-terminated; NULL until the first error */
    size_t capacity;
    int fixed;         /* text is the thread's spare buffer: never reallocated */
};

/* Bumped by every message set on this thread. Read around every action call,
 * so it is one word of initial-exec TLS rather than a pthread key lookup. */
static __thread unsigned long generation __attribute__((tls_model("initial-exec")));

/* A message set as two pieces of static text (sb__error_set_static) and
 * joined only if someone reads it: a C program that probes a value's type
 * with the getters ("an int? else a string") fails on purpose and never
 * reads why, so a failure costs a few stores instead of formatting. */
static __thread const char *pending_first __attribute__((tls_model("initial-exec")));
static __thread const char *pending_second __attribute__((tls_model("initial-exec")));

static pthread_key_t slot_key;
static int slot_key_made;
static pthread_once_t slot_once = PTHREAD_ONCE_INIT;

/* Where a thread's message goes when it cannot have a slot of its own (no
 * thread key was left for the library, or no memory for the slot): cut to
 * the buffer's size, never lost, never allocated. */
static __thread char spare_text[512];
static __thread struct error_slot spare;

static void slot_free(void *p) {
    struct error_slot *slot = p;
    free(slot->text);
    free(slot);
}

static void slot_key_create(void) {
    slot_key_made = pthread_key_create(&slot_key, slot_free) == 0;
}

/* Made as the library loads, so a host that uses up the process's thread
 * keys afterwards does not take the library's. */
__attribute__((constructor)) static void slot_key_at_load(void) {
    pthread_once(&slot_once, slot_key_create);
}

static struct error_slot *spare_slot(void) {
    if (spare.text == NULL) {
        spare.text = spare_text;
        spare.capacity = sizeof spare_text;
        spare.fixed = 1;
    }
    return &spare;
}

static struct error_slot *current_slot(void) {
    pthread_once(&slot_once, slot_key_create);
    if (!slot_key_made) return spare_slot();
    struct error_slot *slot = pthread_getspecific(slot_key);
    if (slot == NULL) {
        slot = calloc(1, sizeof *slot);
        if (slot == NULL || pthread_setspecific(slot_key, slot) != 0) {
            free(slot);
            return spare_slot();
        }
    }
    return slot;
}

/* Room for `length` bytes plus NUL; on allocation failure the message is
 * truncated to what fits (never lost entirely if there was any room).
 * Callers never pass text that lives in the slot (see store). */
static size_t reserve(struct error_slot *slot, size_t length) {
    if (length + 1 > slot->capacity && !slot->fixed) {
        char *bigger = realloc(slot->text, length + 1);
        if (bigger != NULL) {
            slot->text = bigger;
            slot->capacity = length + 1;
        }
    }
    return slot->capacity == 0 ? 0 : (length < slot->capacity ? length : slot->capacity - 1);
}

/* Whether [p, p + length) lies in the slot's buffer: a caller wrapping the
 * last error (`sb_error_set("...: %s", sb_error_message())`) passes our own
 * text back, which a realloc would free before it is read. */
static int aliases_slot(const struct error_slot *slot, const char *p, size_t length) {
    uintptr_t begin = (uintptr_t)slot->text, at = (uintptr_t)p;
    return slot->text != NULL && at >= begin && at - begin < slot->capacity && length < slot->capacity - (at - begin);
}

static void store(struct error_slot *slot, const char *message, size_t length) {
    if (aliases_slot(slot, message, length)) {
        memmove(slot->text, message, length); /* fits: it is already inside */
        slot->text[length] = '\0';
        return;
    }
    size_t n = reserve(slot, length);
    if (slot->capacity == 0) return;
    memcpy(slot->text, message, n);
    slot->text[n] = '\0';
}

void sb__error_set(const char *message, size_t length) {
    generation++;
    pending_first = NULL;
    struct error_slot *slot = current_slot();
    if (slot == NULL) return;
    store(slot, message, length);
}

/* Formats into memory of its own first, never into the slot: any argument
 * (the format included) may point at the message being replaced. */
void sb_error_set(const char *fmt, ...) {
    generation++;
    pending_first = NULL; /* an argument reading sb_error_message() has joined it already */
    struct error_slot *slot = current_slot();
    if (slot == NULL) return;
    if (fmt == NULL) fmt = "(no message)";
    char small[sizeof spare_text]; /* what the spare slot can hold, formatted once */
    va_list args;
    va_start(args, fmt);
    int needed = vsnprintf(small, sizeof small, fmt, args);
    va_end(args);
    if (needed < 0) {
        needed = 0;
        small[0] = '\0';
    }
    if ((size_t)needed < sizeof small) {
        store(slot, small, (size_t)needed);
        return;
    }
    char *text = slot->fixed ? NULL : malloc((size_t)needed + 1);
    if (text == NULL) {
        store(slot, small, sizeof small - 1); /* the part that fitted */
        return;
    }
    va_start(args, fmt);
    vsnprintf(text, (size_t)needed + 1, fmt, args);
    va_end(args);
    free(slot->text);
    slot->text = text;
    slot->capacity = (size_t)needed + 1;
}

void sb__error_set_static(const char *first, const char *second) {
    generation++;
    pending_first = first;
    pending_second = second;
}

/* Joins the pending pieces into the slot, now that someone reads them. */
static const char *join_pending(void) {
    const char *first = pending_first, *second = pending_second;
    pending_first = NULL;
    struct error_slot *slot = current_slot();
    if (slot == NULL) return first; /* no memory for a slot: the first piece is still true */
    size_t a = strlen(first), b = strlen(second);
    size_t n = reserve(slot, a + b);
    if (slot->capacity == 0) return first;
    size_t from_first = n < a ? n : a;
    memcpy(slot->text, first, from_first);
    memcpy(slot->text + from_first, second, n - from_first);
    slot->text[n] = '\0';
    return slot->text;
}

const char *sb_error_message(void) {
    if (pending_first != NULL) return join_pending();
    pthread_once(&slot_once, slot_key_create);
    struct error_slot *slot = slot_key_made ? pthread_getspecific(slot_key) : NULL;
    if (slot == NULL) slot = &spare; /* (a message set without a slot went there) */
    return slot->text != NULL ? slot->text : "";
}

unsigned long sb__error_generation(void) {
    return generation;
}
