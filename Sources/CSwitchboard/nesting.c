/* The lock behind the depth counts of nested values
 * (Sources/SwitchboardC/Values/SBValue+Nesting.swift). In C so that taking it
 * is a plain call: no lazy initialisation to check, no closure. */
#include "switchboard_internal.h"

#include <pthread.h>

static pthread_mutex_t nesting_mutex = PTHREAD_MUTEX_INITIALIZER;

void sb__nesting_lock(void) { (void)pthread_mutex_lock(&nesting_mutex); }

void sb__nesting_unlock(void) { (void)pthread_mutex_unlock(&nesting_mutex); }
