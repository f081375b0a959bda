#include <switchboard.h>
#include "show.h"

int main(void) {
    sb_mediator *m = sb_mediator_shared();
    sb_value *tea = sb_dict_new(), *out = NULL;
    if (sb_plugin_load(m, "./Target_Cart.so") != SB_OK) return 1;
    sb_dict_set_new(tea, "item", sb_string("tea"));

    /* registerService:@protocol(Basket) implClass:[Target_Cart class]: C names
     * the interface (actions with contracts) and binds a target that conforms. */
    sb_service_define(m, "Basket", "add(item: string -> int)\ntotal(-> double)");
    show("bind:", sb_service_bind(m, "Basket", "Cart"), &out);
    /* createService:@protocol(Basket), then a call: one step here. */
    show("Basket.add:", sb_service_perform(m, "Basket", "add", tea, 0, &out), &out);

    /* Binding checks conformance and names what is missing. */
    sb_service_define(m, "Checkout", "pay(cents: int -> bool)");
    show("bind:", sb_service_bind(m, "Checkout", "Cart"), &out);

    sb_value_release(tea);
    return 0;
}
