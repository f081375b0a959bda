/* Target_Typed: the source of the generated wrappers that the tests compile
 * and run in all three languages (scripts/generate.sh writes them into
 * Tests/generated and Tests/SwitchboardTests/Generated). Its contracts use
 * every type, optional params, a default, names that are keywords or not
 * identifiers, and a local action. Each action answers with its params, so a
 * test sees what the wrapper sent. */
#include <switchboard.h>

static sb_status echo(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    *out = params != NULL ? sb_retain((sb_value *)params) : sb_dict_new();
    return SB_OK;
}

/* Declares a string result and answers with a dict: the typed wrappers
 * report the mismatch. */
static sb_status wrong_result(void *state, const sb_value *params, sb_value **out) {
    return echo(state, params, out);
}

static sb_status count_keys(void *state, const sb_value *params, sb_value **out) {
    (void)state;
    *out = sb_int((int64_t)sb_count(params));
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
    {NULL, NULL},
};

const sb_target_def Target_Typed = {SB_ABI_VERSION, NULL, NULL, typed_actions};

const sb_contract_def Contracts_Typed[] = {
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
