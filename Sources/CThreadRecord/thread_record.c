/* The variable thread_record.h describes. */
#include "thread_record.h"

_Thread_local void *sb__thread_record SB__THREAD_RECORD_ATTRIBUTES = 0;
