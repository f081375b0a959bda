/* CTMediator's Target_Cart class as a plugin: it exports Target_Cart (and,
 * optionally, its contracts) and links nothing of Switchboard. Callers find
 * it by the name "Cart" once it is loaded; each instance is one cart.
 *
 *   cc -shared -fPIC Target_Cart.c $(pkg-config --cflags switchboard) -o Target_Cart.so
 */
#include <switchboard.h>
#include <stdlib.h>

struct cart {
    int64_t items;
    double total;
};

static void *cart_new(void) { return calloc(1, sizeof(struct cart)); }
static void cart_free(void *cart) { free(cart); }

static sb_status no_cart(void) {
    sb_error_set("Cart: no memory for a cart");
    return SB_ENOMEM;
}

/* - (NSInteger)Action_add:(NSDictionary *)params */
static sb_status add(void *state, const sb_value *params, sb_value **out) {
    struct cart *cart = state;
    double price = 0;
    if (cart == NULL) return no_cart();
    sb_value_get_double(sb_dict_get(params, "price"), &price); /* the contract made it a double */
    cart->items++;
    cart->total += price;
    *out = sb_int(cart->items);
    return SB_OK;
}

/* - (CGFloat)Action_total:(NSDictionary *)params */
static sb_status total(void *state, const sb_value *params, sb_value **out) {
    struct cart *cart = state;
    (void)params;
    if (cart == NULL) return no_cart();
    *out = sb_double(cart->total);
    return SB_OK;
}

/* - (BOOL)Action_isEmpty:(NSDictionary *)params */
static sb_status is_empty(void *state, const sb_value *params, sb_value **out) {
    struct cart *cart = state;
    (void)params;
    if (cart == NULL) return no_cart();
    *out = sb_bool(cart->items == 0);
    return SB_OK;
}

/* - (void)Action_nativeClear:(NSDictionary *)params: *out stays NULL */
static sb_status native_clear(void *state, const sb_value *params, sb_value **out) {
    struct cart *cart = state;
    (void)params;
    (void)out;
    if (cart == NULL) return no_cart();
    cart->items = 0;
    cart->total = 0;
    return SB_OK;
}

static const sb_action_def cart_actions[] = {
    {"add", add},
    {"total", total},
    {"isEmpty", is_empty},
    {"nativeClear", native_clear},
    {NULL, NULL},
};

/* What the actions take and give, checked at every call (optional). */
static const sb_contract_def cart_contracts[] = {
    {"add", "item: string, price: double = 0.0 -> int"},
    {"total", "-> double"},
    {"isEmpty", "-> bool"},
    {NULL, NULL},
};

const sb_target_def Target_Cart = {SB_TARGET_DEF_VERSION, cart_new, cart_free, cart_actions, cart_contracts};
