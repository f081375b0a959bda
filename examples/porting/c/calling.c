#include <switchboard.h>
#include "show.h"

int main(void) {
    sb_mediator *m = sb_mediator_shared();
    sb_value *tea = sb_dict_new(), *out = NULL;
    sb_dict_set_new(tea, "item", sb_string("tea"));
    sb_dict_set_new(tea, "price", sb_double(2.5));

    /* Where Target_<Name> tables come from: plugins, loaded by path. */
    if (sb_plugin_load(m, "./Target_Cart.so") != SB_OK) {
        fprintf(stderr, "%s\n", sb_error_message());
        return 1;
    }

    /* shouldCacheTarget:NO: each call makes a cart and drops it. */
    show("uncached:", sb_action_perform(m, "Cart", "add", tea, 0, &out), &out);
    show("uncached:", sb_action_perform(m, "Cart", "add", tea, 0, &out), &out);
    /* shouldCacheTarget:YES keeps the cart; uncached calls use it too. */
    show("cached:", sb_action_perform(m, "Cart", "add", tea, SB_CACHE_TARGET, &out), &out);
    show("uncached:", sb_action_perform(m, "Cart", "add", tea, 0, &out), &out);
    /* releaseCachedTargetWithFullTargetName:@"Target_Cart" */
    show("release:", sb_target_evict(m, "Cart"), &out);
    show("release again:", sb_target_evict(m, "Cart"), &out);

    /* kCTMediatorParamsKeySwiftTargetModuleName names the module (of a Swift
     * class, or of a target registered as "Module.Name"); "" names none. */
    sb_dict_set_new(tea, SB_MODULE_KEY_CTMEDIATOR, sb_string("Shop"));
    show("module Shop:", sb_action_perform(m, "Cart", "add", tea, 0, &out), &out);
    sb_dict_set_new(tea, SB_MODULE_KEY_CTMEDIATOR, sb_string(""));
    show("module \"\":", sb_action_perform(m, "Cart", "add", tea, 0, &out), &out);

    sb_value_release(tea);
    return 0;
}
