/* Hostile: target and action names whose NUL is the last byte before a
 * PROT_NONE page, of every length 1..80, UTF-8 or not: a hash that reads
 * past the NUL faults. Names registered from ordinary memory must be found
 * from the page's end (the same bytes hash the same at any alignment). */
#define _DEFAULT_SOURCE
#include <switchboard.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static sb_status echo(void *u, const sb_value *p, sb_value **out) { (void)p; *out = sb_int((int64_t)(intptr_t)u); return SB_OK; }
static sb_status fallback(void *u, const sb_value *p, sb_value **out) { (void)u; (void)p; *out = sb_int(-1); return SB_OK; }

int main(void) {
    long page = sysconf(_SC_PAGESIZE);
    char *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) return 2;
    if (mprotect(map + page, (size_t)page, PROT_NONE) != 0) return 2;
    char *end = map + page; /* first byte that faults */
    sb_mediator *m = sb_mediator_new();
    sb_action_register(m, "NoTargetAction", "response", fallback, NULL, NULL);
    int failures = 0, cases = 0;
    for (int len = 1; len <= 80; len++) {
        for (int kind = 0; kind < 3; kind++) {
            char name[96];
            for (int i = 0; i < len; i++)
                name[i] = kind == 0 ? (char)('a' + (i * 7 + len) % 26)
                        : kind == 1 ? (char)(0x80 + (i % 0x40))        /* not UTF-8 */
                                    : (i % 3 == 0 ? (char)0xc3 : i % 3 == 1 ? (char)0xa9 : 'x'); /* UTF-8 e-acute mixes */
            name[len] = 0;
            if (kind == 2 && len % 3 == 1) name[len - 1] = 'y'; /* keep it valid: no dangling lead byte */
            char *at = end - (len + 1);
            memcpy(at, name, (size_t)len + 1);
            int utf8 = kind != 1;
            /* register from ordinary memory, perform from the page's end (target, then action) */
            sb_status r = sb_action_register(m, name, "act", echo, (void *)(intptr_t)len, NULL);
            if ((r == SB_OK) != utf8) { fprintf(stderr, "register len %d kind %d: %d\n", len, kind, r); failures++; }
            sb_value *out = NULL;
            sb_status s = sb_action_perform(m, at, "act", NULL, 0, &out);
            int64_t v = INT64_MIN;
            sb_value_get_int(out, &v);
            if (utf8 ? (s != SB_OK || v != len) : s != SB_EINVAL) { fprintf(stderr, "perform target len %d kind %d: %d %ld\n", len, kind, s, (long)v); failures++; }
            sb_value_release(out); out = NULL;
            if (utf8) {
                sb_action_register(m, "T", name, echo, (void *)(intptr_t)(1000 + len), NULL);
                s = sb_action_perform(m, "T", at, NULL, 0, &out);
                v = INT64_MIN; sb_value_get_int(out, &v);
                if (s != SB_OK || v != 1000 + len) { fprintf(stderr, "perform action len %d kind %d: %d %ld\n", len, kind, s, (long)v); failures++; }
                sb_value_release(out); out = NULL;
            }
            /* a miss from the page's end: the fallback, or EINVAL for bytes that are not UTF-8 */
            at[0] = 'Z';
            s = sb_action_perform(m, at, at, NULL, 0, &out);
            v = INT64_MIN; sb_value_get_int(out, &v);
            int utf8miss = kind == 1 ? len == 1 : !(kind == 2 && (unsigned char)at[1] == 0xa9);
            if (utf8miss ? (s != SB_OK || v != -1) : s != SB_EINVAL) { fprintf(stderr, "miss len %d kind %d: %d %ld\n", len, kind, s, (long)v); failures++; }
            sb_value_release(out);
            /* route prepare and unregister read names too */
            sb_route *route = NULL;
            (void)sb_route_prepare(m, at, at, 0, &route);
            sb_route_free(route);
            (void)sb_action_unregister(m, at, at);
            (void)sb_target_unregister(m, at);
            cases++;
        }
    }
    /* long names up to the whole page, their NUL last */
    for (long len = 81; len < page; len++) {
        char *at = end - (len + 1);
        memset(at, 'a' + (int)(len % 26), (size_t)len);
        at[len] = 0;
        sb_value *out = NULL;
        sb_status s = sb_action_perform(m, at, at + len / 2, NULL, 0, &out);
        if (s != SB_OK && s != SB_EINVAL) { fprintf(stderr, "long miss %ld: %d\n", len, s); failures++; }
        sb_value_release(out);
        cases++;
    }
    /* the empty name at the very end */
    end[-1] = 0;
    if (sb_action_perform(m, end - 1, "act", NULL, 0, NULL) != SB_EINVAL) failures++;
    sb_mediator_free(m);
    printf("cases %d failures %d\n", cases, failures);
    return failures != 0;
}
