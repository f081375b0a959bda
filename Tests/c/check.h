/* A small test harness for the C suites: CHECK macros that count and report
 * failures with file:line and sb_last_error(), and a summary line. */
#ifndef SB_CHECK_H
#define SB_CHECK_H

#include <switchboard.h>
#include <stdio.h>
#include <string.h>

static int check_total;
static int check_failed;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        check_total++;                                                                  \
        if (!(cond)) {                                                                  \
            check_failed++;                                                             \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);    \
        }                                                                               \
    } while (0)

#define CHECK_STATUS(expr, expected)                                                    \
    do {                                                                                \
        sb_status check_s_ = (expr);                                                    \
        check_total++;                                                                  \
        if (check_s_ != (expected)) {                                                   \
            check_failed++;                                                             \
            fprintf(stderr, "%s:%d: %s gave %s, expected %s (last error: %s)\n",        \
                    __FILE__, __LINE__, #expr, sb_status_string(check_s_), #expected,   \
                    sb_last_error());                                                   \
        }                                                                               \
    } while (0)

#define CHECK_STR(actual, expected)                                                     \
    do {                                                                                \
        const char *check_a_ = (actual);                                                \
        check_total++;                                                                  \
        if (check_a_ == NULL || strcmp(check_a_, (expected)) != 0) {                    \
            check_failed++;                                                             \
            fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__,         \
                    __LINE__, #actual, check_a_ ? check_a_ : "(null)", (expected));     \
        }                                                                               \
    } while (0)

/* True when the thread's last error mentions `needle`. */
#define ERROR_MENTIONS(needle) (strstr(sb_last_error(), (needle)) != NULL)

/* An int result of a call, or INT64_MIN when it is not an int. */
static inline int64_t check_int(const sb_value *v) {
    int64_t i = INT64_MIN;
    if (sb_get_int(v, &i) != SB_OK) return INT64_MIN;
    return i;
}

static inline int check_report(const char *suite) {
    printf("%-12s %5d checks, %d failed\n", suite, check_total, check_failed);
    return check_failed == 0 ? 0 : 1;
}

#endif
