/*
 * What a scenario's process tells its parent: records on a pipe, each a kind
 * byte, an 8-byte length (host order: both ends are the same program) and
 * the payload. Trace lines come as the scenario makes them, the result last;
 * only the process's main thread writes, so records never interleave.
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEADER 9
/* No report of ours comes near this (a scenario's strings come from its
 * Lua state); more is a stream that is not ours. */
#define BIGGEST_RECORD ((uint64_t)1 << 32)
#define NO_STRING UINT64_MAX

/* ---------------------------------------------------------------- sending */

static int write_all(int fd, const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t n = write(fd, bytes, length);
        if (n < 0) {
            if (errno == EINTR) continue;
            return 0;
        }
        bytes += n;
        length -= (size_t)n;
    }
    return 1;
}

int sbr_channel_send(int fd, char kind, const void *payload, size_t length) {
    char header[HEADER];
    uint64_t size = length;
    header[0] = kind;
    memcpy(header + 1, &size, sizeof size);
    return write_all(fd, header, sizeof header) && write_all(fd, payload, length);
}

/* A growing buffer that remembers a failed allocation. */
typedef struct buffer {
    char *data;
    size_t used, capacity;
    int failed;
} buffer;

static void put(buffer *b, const void *bytes, size_t length) {
    if (b->failed) return;
    if (length > b->capacity - b->used) {
        size_t capacity = b->capacity > 0 ? b->capacity : 256;
        while (capacity - b->used < length) {
            if (capacity > SIZE_MAX / 2) {
                b->failed = 1;
                return;
            }
            capacity *= 2;
        }
        char *grown = realloc(b->data, capacity);
        if (grown == NULL) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->used, bytes, length);
    b->used += length;
}

static void put_size(buffer *b, uint64_t n) {
    put(b, &n, sizeof n);
}

static void put_string(buffer *b, const char *s) {
    if (s == NULL) {
        put_size(b, NO_STRING);
        return;
    }
    size_t length = strlen(s);
    put_size(b, length);
    put(b, s, length);
}

int sbr_channel_send_result(int fd, const sbr_result *r) {
    buffer b = {0};
    unsigned char outcome = (unsigned char)r->outcome;
    put(&b, &outcome, 1);
    put_string(&b, r->message);
    put_string(&b, r->where);
    put_string(&b, r->step);
    put_string(&b, r->traceback);
    put_string(&b, r->output);
    put_string(&b, r->calls);
    put_size(&b, r->expectations);
    put_size(&b, r->step_count);
    for (size_t i = 0; i < r->step_count; i++) {
        put_string(&b, r->steps[i].name);
        put_string(&b, r->steps[i].status);
        put(&b, &r->steps[i].seconds, sizeof r->steps[i].seconds);
    }
    int sent = !b.failed && sbr_channel_send(fd, SBR_RECORD_RESULT, b.data, b.used);
    free(b.data);
    return sent;
}

/* ---------------------------------------------------------------- receiving */

int sbr_inbox_read(sbr_inbox *in, int fd) {
    if (in->start > 0) { /* what was taken goes; the rest moves to the front */
        memmove(in->data, in->data + in->start, in->used - in->start);
        in->used -= in->start;
        in->start = 0;
    }
    if (in->capacity - in->used < 4096) {
        size_t capacity = in->capacity > 0 ? in->capacity * 2 : 16384;
        if (capacity < in->capacity || capacity > BIGGEST_RECORD + 2 * HEADER + 16384) return -1;
        char *grown = realloc(in->data, capacity);
        if (grown == NULL) return -1;
        in->data = grown;
        in->capacity = capacity;
    }
    for (;;) {
        ssize_t n = read(fd, in->data + in->used, in->capacity - in->used);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        in->used += (size_t)n;
        return n > 0;
    }
}

int sbr_inbox_put(sbr_inbox *in, const char *bytes, size_t length) {
    if (in->start > 0) {
        memmove(in->data, in->data + in->start, in->used - in->start);
        in->used -= in->start;
        in->start = 0;
    }
    if (length > in->capacity - in->used) {
        size_t capacity = in->capacity > 0 ? in->capacity : 16384;
        while (capacity - in->used < length) {
            if (capacity > SIZE_MAX / 2) return 0;
            capacity *= 2;
        }
        char *grown = realloc(in->data, capacity);
        if (grown == NULL) return 0;
        in->data = grown;
        in->capacity = capacity;
    }
    memcpy(in->data + in->used, bytes, length);
    in->used += length;
    return 1;
}

int sbr_inbox_take(sbr_inbox *in, char *kind, const char **payload, size_t *length) {
    size_t available = in->used - in->start;
    if (available < HEADER) return 0;
    uint64_t size;
    memcpy(&size, in->data + in->start + 1, sizeof size);
    if (size > available - HEADER) return 0;
    *kind = in->data[in->start];
    *payload = in->data + in->start + HEADER;
    *length = (size_t)size;
    in->start += HEADER + (size_t)size;
    return 1;
}

void sbr_inbox_free(sbr_inbox *in) {
    free(in->data);
    memset(in, 0, sizeof *in);
}

/* A cursor over a record being decoded; `bad` once it ran past the end. */
typedef struct cursor {
    const char *at;
    size_t left;
    int bad;
} cursor;

static int get(cursor *c, void *out, size_t length) {
    if (c->bad || length > c->left) {
        c->bad = 1;
        return 0;
    }
    memcpy(out, c->at, length);
    c->at += length;
    c->left -= length;
    return 1;
}

static char *get_string(cursor *c) {
    uint64_t length;
    if (!get(c, &length, sizeof length) || length == NO_STRING) return NULL;
    if (length > c->left) {
        c->bad = 1;
        return NULL;
    }
    char *s = malloc((size_t)length + 1);
    if (s == NULL) {
        c->bad = 1;
        return NULL;
    }
    memcpy(s, c->at, (size_t)length);
    s[length] = '\0';
    c->at += length;
    c->left -= (size_t)length;
    return s;
}

int sbr_channel_decode_result(const char *payload, size_t length, sbr_result *r) {
    memset(r, 0, sizeof *r);
    cursor c = {payload, length, 0};
    unsigned char outcome = 0;
    get(&c, &outcome, 1);
    /* Never "interrupted": only the runner knows a signal stopped the run. */
    r->outcome = outcome <= SBR_LIMIT || outcome == SBR_SKIPPED ? (sbr_outcome)outcome : SBR_ERROR;
    r->message = get_string(&c);
    r->where = get_string(&c);
    r->step = get_string(&c);
    r->traceback = get_string(&c);
    r->output = get_string(&c);
    r->calls = get_string(&c);
    uint64_t expectations = 0, steps = 0;
    get(&c, &expectations, sizeof expectations);
    r->expectations = (size_t)expectations;
    get(&c, &steps, sizeof steps);
    /* Each step takes at least 24 bytes: a count past that is not ours. */
    if (!c.bad && steps > 0 && steps <= c.left / 24) {
        r->steps = calloc((size_t)steps, sizeof *r->steps);
        if (r->steps == NULL) c.bad = 1;
        for (uint64_t i = 0; !c.bad && i < steps; i++) {
            sbr_step *s = &r->steps[r->step_count++];
            s->name = get_string(&c);
            s->status = get_string(&c);
            get(&c, &s->seconds, sizeof s->seconds);
        }
    } else if (steps > 0) {
        c.bad = 1;
    }
    if (c.bad || c.left != 0) {
        sbr_result_clear(r);
        return 0;
    }
    return 1;
}
