#include <switchboard.h>
#include "show.h"
#include <ctype.h>
#include <string.h>

/* valueConverters["slug"]: letters and "-", in lower case; *out left NULL declines. */
static sb_status slug(void *userdata, const sb_value *segment, sb_value **out) {
    char lowered[256];
    const char *text = sb_value_get_string(segment, NULL);
    size_t i = 0;
    (void)userdata;
    for (; text[i] != '\0' && i + 1 < sizeof lowered; i++) {
        if (!isalpha((unsigned char)text[i]) && text[i] != '-') return SB_OK;
        lowered[i] = (char)tolower((unsigned char)text[i]);
    }
    lowered[i] = '\0';
    *out = sb_string(lowered);
    return SB_OK;
}

/* unmatchedURLHandler: it gets the whole URL. */
static sb_status missing(void *userdata, const sb_value *params, sb_value **out) {
    char text[256];
    (void)userdata;
    snprintf(text, sizeof text, "no page for %s", sb_value_get_string(sb_dict_get(params, "url"), NULL));
    *out = sb_string(text);
    return SB_OK;
}

int main(void) {
    sb_mediator *m = sb_mediator_shared();
    sb_value *params = sb_dict_new(), *out = NULL;
    char *url = NULL;
    if (sb_plugin_load(m, "./Target_Cart.so") != SB_OK) return 1;
    sb_url_converter_add(m, "slug", slug, NULL, NULL);
    sb_url_pattern_add(m, "shop://tag/<slug:item>", "Cart", "add");

    /* generateURLWithPattern:parameters: — by name; matching gives them back. */
    sb_dict_set_new(params, "item", sb_string("Green-Tea"));
    sb_dict_set_new(params, "price", sb_string("2"));
    if (sb_url_build(m, "shop://tag/<slug:item>", params, &url) == SB_OK) printf("built: %s\n", url);

    /* canRouteURL:, handler(for:) — what would answer, calling nothing. */
    if (sb_url_lookup(m, url, &out) == SB_OK) {
        printf("lookup: %s %s %s %s\n", sb_value_get_string(sb_dict_get(out, "kind"), NULL),
               sb_value_get_string(sb_dict_get(out, "target"), NULL), sb_value_get_string(sb_dict_get(out, "action"), NULL),
               sb_value_get_string(sb_dict_get(sb_dict_get(out, "params"), "item"), NULL));
    }
    sb_value_release(out);
    show("opened:", sb_url_open(m, url, NULL, &out), &out);
    sb_memory_free(url);

    /* unmatchedURLHandler — for the scheme (NULL: every scheme). */
    show("before:", sb_url_open(m, "shop://cart", NULL, &out), &out);
    sb_url_fallback_set_handler(m, "shop", missing, NULL, NULL);
    show("fallback:", sb_url_open(m, "shop://cart?x=1", NULL, &out), &out);

    /* unregisterRouteScheme: every pattern of the scheme at once. */
    show("removed:", sb_url_pattern_remove_scheme(m, "shop", &out), &out);
    sb_value_release(params);
    return 0;
}
