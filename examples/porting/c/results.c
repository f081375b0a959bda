#include <switchboard.h>
#include "show.h"
#include "generated/sb_cart.h"

static sb_status page_404(void *userdata, const sb_value *params, sb_value **out) {
    (void)userdata;
    (void)params;
    *out = sb_string("a 404 page");
    return SB_OK;
}

static sb_status free_of_charge(void *userdata, const sb_value *params, sb_value **out) {
    (void)userdata;
    (void)params;
    *out = sb_string("free");
    return SB_OK;
}

int main(void) {
    static const char *const kinds[] = {"null", "bool", "int", "double", "string",
                                        "bytes", "array", "dict", "callback", "pointer"};
    static const char *const actions[] = {"add", "total", "isEmpty", "nativeClear"};
    sb_mediator *m = sb_mediator_shared();
    sb_value *tea = sb_dict_new(), *out = NULL;
    double price = 2.5, total = 0;
    if (sb_plugin_load(m, "./Target_Cart.so") != SB_OK) return 1;
    sb_dict_set_new(tea, "item", sb_string("tea"));
    sb_dict_set_new(tea, "price", sb_double(price));

    /* CTMediator boxes NSInteger, BOOL and CGFloat in an NSNumber and gives
     * nil for void; an sb_value keeps each kind apart, and void is SB_NULL. */
    for (size_t i = 0; i < 4; i++) {
        sb_action_perform(m, "Cart", actions[i], tea, SB_CACHE_TARGET, &out);
        char *json = sb_json_encode(out);
        printf("%s: %s %s\n", actions[i], json != NULL ? json : "?", kinds[sb_value_type(out)]);
        sb_memory_free(json);
        sb_value_release(out);
    }
    /* Getters are strict: an int is not a double ([n doubleValue] would be). */
    sb_action_perform(m, "Cart", "add", tea, SB_CACHE_TARGET, &out);
    printf("sb_value_get_double(add's result): %s\n", sb_status_string(sb_value_get_double(out, &total)));
    sb_value_release(out);

    /* CTMediator+Cart, the category of typed methods, is generated from the
     * contracts: switchboard gen --lang c (generated/sb_cart.h). */
    show("sb_cart_add:", sb_cart_add(m, "tea", &price, SB_CACHE_TARGET, &out), &out);
    show("sb_cart_total:", sb_cart_total(m, SB_CACHE_TARGET, &out), &out);

    /* A typed wrapper never takes a fallback: it knows nothing of its type. */
    sb_mediator *bare = sb_mediator_new(); /* no Target_Cart here */
    sb_action_register(bare, "NoTargetAction", "response", page_404, NULL, NULL);
    show("sb_action_perform:", sb_action_perform(bare, "Cart", "total", NULL, 0, &out), &out);
    show("sb_cart_total:", sb_cart_total(bare, 0, &out), &out);

    /* A declared result is checked on every call. */
    sb_action_register_contract(bare, "Cart", "total", "-> double", free_of_charge, NULL, NULL);
    show("sb_action_perform:", sb_action_perform(bare, "Cart", "total", NULL, 0, &out), &out);

    sb_mediator_free(bare);
    sb_value_release(tea);
    return 0;
}
