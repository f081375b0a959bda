#include <switchboard.h>
#include <stdio.h>

/* An action: greets params.name, then tells params.done about it. */
static sb_status hello(void *userdata, const sb_value *params, sb_value **out) {
    const char *name = sb_value_get_string(sb_dict_get(params, "name"), NULL);
    char text[64];
    (void)userdata;
    snprintf(text, sizeof text, "Hello, %s!", name ? name : "world");
    sb_value *greeting = sb_string(text);
    sb_status s = sb_callback_call(sb_dict_get(params, "done"), greeting, out);
    sb_value_release(greeting);
    return s;
}

/* A callback the caller passes in params, with its label as userdata
   (an array, not a string literal: C++ will not pass a literal as void *). */
static char said[] = "greeter said:";
static sb_status print_it(void *userdata, const sb_value *args, sb_value **out) {
    printf("%s %s\n", (const char *)userdata, sb_value_get_string(args, NULL));
    *out = sb_bool(1);
    return SB_OK;
}

int main(void) {
    sb_mediator *m = sb_mediator_shared();
    sb_action_register(m, "Greeter", "hello", hello, NULL, NULL);

    sb_value *params = sb_dict_new(), *out = NULL;
    sb_dict_set_new(params, "name", sb_string("Ada"));
    sb_dict_set_new(params, "done", sb_callback_new(print_it, said, NULL));
    sb_status s = sb_action_perform(m, "Greeter", "hello", params, 0, &out);   /* greeter said: Hello, Ada! */
    sb_value_release(params);
    sb_value_release(out);

    s = sb_action_perform(m, "Nobody", "anything", NULL, 0, &out);
    printf("%s: %s\n", sb_status_string(s), sb_error_message());  /* no such target: no target named "Nobody" */
    return 0;
}
