/* Target_Typed: the source of the generated wrappers that the tests compile
 * and run in all three languages (scripts/generate.sh writes them into
 * Tests/generated and Tests/SwitchboardTests/Generated). Its contracts use
 * every type, optional params, a default, names that are keywords or not
 * identifiers, a local action, and two that answer later (async). Each
 * action answers with its params, so a test sees what the wrapper sent; the
 * async ones answer when finishLater is called. */
#include <switchboard.h>

#include <stdio.h>

static sb_status echo(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    *out = params != NULL ? sb_value_retain((sb_value *)params) : sb_dict_new();
    return SB_OK;
}

/* Declares a string result and answers with a dict: the typed wrappers
 * report the mismatch. */
static sb_status wrong_result(void *state, const sb_value *params, sb_value **out) {
    return echo(state, params, out);
}

static sb_status count_keys(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    *out = sb_int((int64_t)sb_value_count(params));
    return SB_OK;
}

/* The one call of later / laterAny that waits for finishLater (the test
 * suites call them one at a time). */
static sb_completion pending;
static int64_t pending_n;

/* Answers later: takes its completion and leaves it to finishLater. */
static sb_status later(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)out;
    if (pending != 0) {
        sb_error_set("Typed.later: a call is waiting already");
        return SB_EACTION;
    }
    if (sb_value_get_int(sb_dict_get(params, "n"), &pending_n) != SB_OK) pending_n = 0;
    pending = sb_completion_take();
    return SB_PENDING;
}

/* Completes the waiting call with "later N" and answers with what
 * sb_completion_succeed returned (SB_ETIMEOUT once its caller gave up). */
static sb_status finish_later(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    (void)params;
    if (pending == 0) {
        sb_error_set("Typed.finishLater: no call is waiting");
        return SB_EACTION;
    }
    char text[64];
    snprintf(text, sizeof text, "later %lld", (long long)pending_n);
    sb_completion c = pending;
    pending = 0;
    *out = sb_int((int64_t)sb_completion_succeed(c, sb_string(text)));
    return SB_OK;
}

static const sb_action_def typed_actions[] = {
    {"everything", echo},
    {"optional", echo},
    {"oddNames", echo},
    {"secret", echo},
    {"wrongResult", wrong_result},
    {"countKeys", count_keys},
    {"clashes", echo},
    {"untyped", echo},
    {"later", later},
    {"laterAny", later},
    {"finishLater", finish_later},
    {NULL, NULL},
};

static const sb_contract_def typed_contracts[] = {
    {"everything", "flag: bool -- a bool\n"
                   "count: int -- an int\n"
                   "ratio: double\n"
                   "name: string -- \"quoted\" */ and ?\?= kept as text\n"
                   "data: bytes\n"
                   "list: array\n"
                   "map: dict\n"
                   "done: callback\n"
                   "anything: any\n"
                   "-> dict"},
    {"optional", "flag: bool?\n"
                 "count: int = 7 -- has a default\n"
                 "ratio: double?, name: string?, data: bytes?, list: array?, map: dict?, done: callback?\n"
                 "anything: any?\n"
                 "-> dict"},
    {"oddNames", "default: int?, answer-id: string?, end: bool?, params: string?, out: int? -> dict"},
    {"secret", "local\n-> dict"},
    {"later", "async\nn: int -> string"},
    {"laterAny", "async"},
    {"wrongResult", "-> string"},
    {"countKeys", "a: int?, b: int? -> int"},
    /* Names that would clash in the generated code: with each other once
     * made identifiers, with a bytes param's length, with the library, with
     * the wrapper's own names, with keywords; and a doc that opens a C comment
     * and closes it with a combining mark after it (Characters would miss it). */
    {"clashes", "int: int?, int_: int?, data: bytes?, data_len: int?, sb_value: int?, sb_string: string?\n"
                "call: int?, await: int?, var: int?, var_: int?, default: int?, default_: int? -- see /* old */\xCC\x81 new\n"
                "-> dict"},
    {NULL, NULL},
};

const sb_target_def Target_Typed = {SB_TARGET_DEF_VERSION, NULL, NULL, typed_actions, typed_contracts};
