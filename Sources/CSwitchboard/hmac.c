/* HMAC-SHA256 for signed URLs, from the system's OpenSSL. The Swift package's
 * URLSigner uses swift-crypto; linking that into libswitchboard.so would
 * bring BoringSSL and Foundation along and double the library's size, for a
 * function every Linux system already has. libcrypto is opened only when a
 * program signs or checks URLs, so the library itself still needs nothing
 * beyond libc and libstdc++. */
#include "switchboard_internal.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* OpenSSL's one-shot HMAC() and EVP_sha256(), the same in 1.1 and 3. */
typedef const void *(*digest_fn)(void);
typedef unsigned char *(*hmac_fn)(const void *digest, const void *key, int key_length, const unsigned char *data,
                                  size_t length, unsigned char *mac, unsigned int *mac_length);

static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static digest_fn sha256;
static hmac_fn hmac;
static char load_error[256];

static void load(void) {
    static const char *const names[] = {"libcrypto.so.3", "libcrypto.so.1.1"};
    void *library = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && library == NULL; i++)
        library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        /* dlerror() is NULL when a dlopen wrapper (a sandbox's, a test's)
         * failed without saying why. */
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error,
                 "URL signing needs OpenSSL's libcrypto (libcrypto.so.3 or .so.1.1), which cannot be loaded: %s",
                 why != NULL ? why : "no reason given");
        return;
    }
    /* POSIX's way to turn dlsym's object pointer into a function pointer. */
    *(void **)(&sha256) = dlsym(library, "EVP_sha256");
    *(void **)(&hmac) = dlsym(library, "HMAC");
    if (sha256 == NULL || hmac == NULL) {
        sha256 = NULL;
        hmac = NULL;
        snprintf(load_error, sizeof load_error, "URL signing: libcrypto has no HMAC or EVP_sha256");
    }
}

int sb__hmac_sha256(const void *key, size_t key_length, const void *message, size_t length,
                    unsigned char mac[32], char *why, size_t size) {
    pthread_once(&loaded, load);
    const char *problem = NULL;
    unsigned int mac_length = 0;
    if (hmac == NULL) {
        problem = load_error;
    } else if (key_length > INT_MAX) {
        problem = "URL signing: the key is too long";
    } else if (hmac(sha256(), key, (int)key_length, message, length, mac, &mac_length) == NULL || mac_length != 32) {
        problem = "URL signing: libcrypto's HMAC failed";
    }
    if (problem == NULL) return 0;
    if (why != NULL && size > 0) snprintf(why, size, "%s", problem);
    return -1;
}
