/* How the C samples print what a call gave: the result as JSON ("ok" for a
 * call that gives none), or the status and the message. Releases the result
 * and clears *out. */
#include <switchboard.h>
#include <stdio.h>

static void show(const char *label, sb_status s, sb_value **out) {
    if (s == SB_OK) {
        char *json = sb_json_encode(*out);
        printf("%s %s\n", label, json != NULL ? json : "ok");
        sb_memory_free(json);
    } else {
        printf("%s %s: %s\n", label, sb_status_string(s), sb_error_message());
    }
    sb_value_release(*out);
    *out = NULL;
}
