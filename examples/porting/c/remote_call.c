#include <switchboard.h>
#include "show.h"

/* The completion: {"result": value}, or {"error": message, "code": name}. */
static sb_status completion(void *url, const sb_value *info, sb_value **out) {
    char *json = sb_json_encode(info);
    (void)out;
    printf("%s -> %s\n", (const char *)url, json);
    sb_memory_free(json);
    return SB_OK;
}

int main(void) {
    static const char *const urls[] = {
        "app://Cart/add?item=tea&price=2.5", /* the query's "2.5" becomes the double add declares */
        "app://Cart/add/?item=tea",          /* one trailing slash, as in CTMediator */
        "app://Cart/add/more?item=tea",      /* CTMediator would call Action_addmore: */
        "app://Cart/nativeClear",            /* native* actions: never from a URL */
        "shop://Cart/add?item=tea",          /* only app:// is connected by default */
    };
    sb_mediator *m = sb_mediator_shared();
    sb_value *out = NULL;
    if (sb_plugin_load(m, "./Target_Cart.so") != SB_OK) return 1;

    /* performActionWithUrl:completion: — the completion is always called. */
    for (size_t i = 0; i < sizeof urls / sizeof urls[0]; i++) {
        sb_value *done = sb_callback_new(completion, (void *)urls[i], NULL);
        sb_url_options options = SB_URL_OPTIONS_INIT;
        options.completion = done;
        sb_url_open(m, urls[i], &options, &out);
        sb_value_release(done);
        sb_value_release(out);
    }

    /* CTMediator takes any scheme; connect the ones you use. */
    sb_scheme_register(m, "shop", NULL, NULL, NULL);
    show("shop:", sb_url_open(m, "shop://Cart/add?item=tea", NULL, &out), &out);
    show("refused:", sb_url_open(m, "app://Cart/nativeClear", NULL, &out), &out);
    return 0;
}
