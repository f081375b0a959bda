/* A small test harness for the C suites: CHECK macros that count and report
 * failures with file:line and sb_error_message(), and a summary line. */
#ifndef SB_CHECK_H
#define SB_CHECK_H

#include <switchboard.h>
#include <stdio.h>
#include <stdlib.h>
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
                    sb_error_message());                                                   \
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
#define ERROR_MENTIONS(needle) (strstr(sb_error_message(), (needle)) != NULL)

/* An int result of a call, or INT64_MIN when it is not an int. */
static inline int64_t check_int(const sb_value *v) {
    int64_t i = INT64_MIN;
    if (sb_value_get_int(v, &i) != SB_OK) return INT64_MIN;
    return i;
}

/* Rows of docs/ROBUSTNESS.md: an input or fault class, how many cases of it
 * were tried, and what was observed. check_report() appends them to the file
 * named by $SB_ROBUSTNESS_LOG (scripts/test.sh sets it), only if every check
 * passed; scripts/robustness.sh renders them and compares with the document. */
#define ROBUSTNESS_MAX 16
typedef struct {
    const char *fault;
    long cases;
    const char *observed;
} robustness_entry;
static robustness_entry robustness_rows[ROBUSTNESS_MAX];
static int robustness_count;

static inline void robustness_row(const char *fault, long cases, const char *observed) {
    robustness_entry row;
    row.fault = fault;
    row.cases = cases;
    row.observed = observed;
    if (robustness_count < ROBUSTNESS_MAX) robustness_rows[robustness_count++] = row;
}

static inline int check_report(const char *suite) {
    printf("%-12s %5d checks, %d failed\n", suite, check_total, check_failed);
    const char *log = getenv("SB_ROBUSTNESS_LOG");
    FILE *f = check_failed == 0 && log != NULL && *log ? fopen(log, "a") : NULL;
    for (int i = 0; f != NULL && i < robustness_count; i++)
        fprintf(f, "%s\t%ld\t%s\n", robustness_rows[i].fault, robustness_rows[i].cases,
                robustness_rows[i].observed);
    if (f != NULL) fclose(f);
    return check_failed == 0 ? 0 : 1;
}

#endif
