// switchboard.h as a C++ program sees it: it compiles with the strictest
// flags (scripts/check-header-languages.sh builds this file as C++11 and
// C++17, -Wall -Wextra -Werror -pedantic), links against libswitchboard.so
// and calls through the C linkage the header declares.
#include <switchboard.h>

#include <cstdio>
#include <cstring>

static int failures = 0;

#define EXPECT(cond)                                                        \
    do {                                                                    \
        if (!(cond)) {                                                      \
            std::fprintf(stderr, "%s:%d: EXPECT(%s) failed (last error: %s)\n", \
                         __FILE__, __LINE__, #cond, sb_error_message());       \
            failures++;                                                     \
        }                                                                   \
    } while (0)

int main() {
    // The header's version and the library's agree.
    EXPECT(std::strcmp(sb_version(), SB_VERSION_STRING) == 0);
    EXPECT(sb_version_number() == SB_VERSION_NUMBER);
    EXPECT(SB_VERSION_NUMBER == SB_VERSION_MAJOR * 10000 + SB_VERSION_MINOR * 100 + SB_VERSION_PATCH);

    // The status names are static strings; SB_OK's is not a failure's.
    const char *ok = sb_status_string(SB_OK);
    EXPECT(ok != NULL && ok[0] != '\0');
    EXPECT(std::strcmp(ok, sb_status_string(SB_EINVAL)) != 0);

    sb_mediator *m = sb_mediator_new();
    EXPECT(m != NULL);

    // A dict built and read back: the value under the key, nothing under another.
    sb_value *dict = sb_dict_new();
    EXPECT(dict != NULL);
    EXPECT(sb_dict_set_new(dict, "answer", sb_int(42)) == SB_OK);
    EXPECT(sb_dict_set_new(dict, "name", sb_string("Ada")) == SB_OK);
    int64_t answer = 0;
    EXPECT(sb_value_get_int(sb_dict_get(dict, "answer"), &answer) == SB_OK);
    EXPECT(answer == 42);
    EXPECT(sb_dict_get(dict, "missing") == NULL);
    // Wrong input from C++ gets a status, not a crash.
    EXPECT(sb_dict_set_new(NULL, "k", sb_int(1)) != SB_OK);

    std::printf("switchboard %s (%d): %s; answer %lld\n", sb_version(), sb_version_number(), ok,
                static_cast<long long>(answer));
    sb_value_release(dict);
    sb_mediator_free(m);
    if (failures != 0) {
        std::fprintf(stderr, "%d failed\n", failures);
        return 1;
    }
    return 0;
}
