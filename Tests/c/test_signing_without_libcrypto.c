/* URL signing on a system without OpenSSL's libcrypto: this program's own
 * dlopen refuses every libcrypto (it interposes the library's, as a
 * sandbox's wrapper would) and, like such wrappers, leaves dlerror() empty.
 * The signing functions must fail with SB_EACTION and a message naming
 * libcrypto, a short key must still be SB_EINVAL, and URLs must still open
 * where no signature is required. */
#define _GNU_SOURCE
#include "check.h"

#include <dlfcn.h>
#include <string.h>

static int crypto_refused;

void *dlopen(const char *name, int flags) {
    static void *(*real)(const char *, int);
    if (name != NULL && strstr(name, "libcrypto") != NULL) {
        crypto_refused++;
        return NULL;
    }
    if (real == NULL) *(void **)(&real) = dlsym(RTLD_NEXT, "dlopen");
    return real == NULL ? NULL : real(name, flags);
}

static sb_status echo(void *u, const sb_value *params, sb_value **out) {
    (void)u;
    *out = sb_value_retain((sb_value *)params);
    return SB_OK;
}

int main(void) {
    static const char key[] = "0123456789abcdef-no-libcrypto";
    sb_mediator *m = sb_mediator_new();
    sb_value *out = NULL;
    CHECK_STATUS(sb_action_register(m, "A", "show", echo, NULL, NULL), SB_OK);

    /* The caller's mistake first: a short key is SB_EINVAL either way. */
    CHECK_STATUS(sb_url_require_signature(m, key, 15), SB_EINVAL);
    CHECK(ERROR_MENTIONS("at least 16 bytes"));
    CHECK(sb_url_sign(key, 15, "app://A/show", 5) == NULL);
    CHECK(ERROR_MENTIONS("at least 16 bytes"));

    CHECK_STATUS(sb_url_require_signature(m, key, sizeof key - 1), SB_EACTION);
    CHECK(ERROR_MENTIONS("libcrypto") && ERROR_MENTIONS("cannot be loaded") && !ERROR_MENTIONS("(null)"));
    sb_error_set("stale");
    CHECK(sb_url_sign(key, sizeof key - 1, "app://A/show", 5) == NULL);
    CHECK(ERROR_MENTIONS("libcrypto"));
    CHECK(crypto_refused >= 1);

    /* The refusal left no key behind: URLs open unsigned. */
    CHECK_STATUS(sb_url_open(m, "app://A/show?x=1", NULL, &out), SB_OK);
    CHECK_STR(sb_value_get_string(sb_dict_get(out, "x"), NULL), "1");
    sb_value_release(out);
    sb_mediator_free(m);
    robustness_row("URL signing without libcrypto (dlopen refused, dlerror empty): sb_url_require_signature, "
                   "sb_url_sign, short keys", 5,
                   "SB_EACTION naming libcrypto (SB_EINVAL for a short key); unsigned URLs still open; no crash");
    return check_report("no_libcrypto");
}
