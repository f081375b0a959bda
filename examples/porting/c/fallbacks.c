#include <switchboard.h>
#include "show.h"

/* Target_NoTargetAction's response: answers what nothing else answers, with
 * CTMediator's params and a few more; this one answers with them. */
static sb_status response(void *userdata, const sb_value *params, sb_value **out) {
    (void)userdata;
    *out = sb_value_retain((sb_value *)params);
    return SB_OK;
}

/* Help's notFound: answers the actions Help lacks, with their params. */
static sb_status help_not_found(void *userdata, const sb_value *params, sb_value **out) {
    const char *topic = sb_value_get_string(sb_dict_get(params, "topic"), NULL);
    char text[64];
    (void)userdata;
    snprintf(text, sizeof text, "no help on %s", topic != NULL ? topic : "that");
    *out = sb_string(text);
    return SB_OK;
}

int main(void) {
    sb_mediator *m = sb_mediator_shared();
    sb_value *help = sb_dict_new(), *shop = sb_dict_new(), *tea = sb_dict_new(), *out = NULL;
    if (sb_plugin_load(m, "./Target_Cart.so") != SB_OK) return 1;
    sb_action_register(m, "NoTargetAction", "response", response, NULL, NULL);
    sb_action_register(m, "Help", "notFound", help_not_found, NULL, NULL);

    sb_dict_set_new(help, "topic", sb_string("tea"));
    show("notFound:", sb_action_perform(m, "Help", "search", help, 0, &out), &out);

    /* No target, or no action and no notFound: NoTargetAction answers. */
    sb_dict_set_new(shop, "id", sb_int(7));
    show("no target:", sb_action_perform(m, "Shop", "open", shop, 0, &out), &out);
    sb_dict_set_new(tea, SB_MODULE_KEY_CTMEDIATOR, sb_string("Shop"));
    show("module key:", sb_action_perform(m, "Cart", "add", tea, 0, &out), &out);
    show("from a URL:", sb_url_open(m, "app://Shop/open?id=7", NULL, &out), &out);

    /* A missing action also drops the cached target (the cart starts again). */
    sb_dict_set_new(tea, "item", sb_string("tea"));
    sb_dict_set_new(tea, SB_MODULE_KEY_CTMEDIATOR, sb_string(""));
    show("cached:", sb_action_perform(m, "Cart", "add", tea, SB_CACHE_TARGET, &out), &out);
    show("no action:", sb_action_perform(m, "Cart", "checkout", NULL, 0, &out), &out);
    show("cached:", sb_action_perform(m, "Cart", "add", tea, SB_CACHE_TARGET, &out), &out);

    /* SB_NO_FALLBACK reports what is missing instead of falling back. */
    show("no fallback:", sb_action_perform(m, "Cart", "checkout", NULL, SB_NO_FALLBACK, &out), &out);

    sb_value_release(help);
    sb_value_release(shop);
    sb_value_release(tea);
    return 0;
}
