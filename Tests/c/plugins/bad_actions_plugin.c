/* A plugin whose action list has an entry without a function. */
#include <switchboard.h>

static const sb_action_def actions[] = {{"broken", NULL}, {NULL, NULL}};

const sb_target_def Target_Broken = {SB_TARGET_DEF_VERSION, NULL, NULL, actions, NULL};
