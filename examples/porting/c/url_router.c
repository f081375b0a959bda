#include <switchboard.h>
#include "show.h"

/* registerURLPattern:toHandler: — the handler gets the query, the captures
 * and the user info in one dict. */
static sb_status user_page(void *userdata, const sb_value *params, sb_value **out) {
    char *json = sb_json_encode(params);
    (void)userdata;
    printf("handler got %s\n", json);
    sb_memory_free(json);
    *out = sb_string("the user page");
    return SB_OK;
}

static sb_status completion(void *userdata, const sb_value *info, sb_value **out) {
    char *json = sb_json_encode(info);
    (void)userdata;
    (void)out;
    printf("completion got %s\n", json);
    sb_memory_free(json);
    return SB_OK;
}

int main(void) {
    sb_mediator *m = sb_mediator_shared();
    sb_value *user_info = sb_dict_new(), *done = sb_callback_new(completion, NULL, NULL), *out = NULL;
    if (sb_plugin_load(m, "./Target_Cart.so") != SB_OK) return 1;

    /* <int:id> arrives as an int; (/:tab) is optional. */
    sb_url_pattern_add_handler(m, "app://user/<int:id>(/:tab)", user_page, NULL, NULL);
    /* A pattern may lead to any target's action, Target_Cart's too. */
    sb_url_pattern_add(m, "app://buy/:item", "Cart", "add");

    /* openURL:withUserInfo:completion: — the user info goes beside the URL. */
    sb_dict_set_new(user_info, "from", sb_string("inbox"));
    sb_url_options options = SB_URL_OPTIONS_INIT;
    options.params = user_info;
    options.completion = done;
    sb_url_open(m, "app://user/42/posts?ref=mail", &options, &out);
    sb_value_release(out);
    show("buy:", sb_url_open(m, "app://buy/tea?price=2.5", NULL, &out), &out);

    /* deregisterURLPattern: — then app://buy/tea is target "buy", action "tea". */
    sb_url_pattern_remove(m, "app://buy/:item");
    show("removed:", sb_url_open(m, "app://buy/tea", NULL, &out), &out);

    sb_value_release(user_info);
    sb_value_release(done);
    return 0;
}
