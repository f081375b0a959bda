/* The lock behind the depth counts of nested values
 * (Sources/SwitchboardC/Values/SBValue+Nesting.swift). In C so that taking it
 * is a plain call: no lazy initialisation to check, no closure.
 *
 * Every container that goes into or leaves a container takes it (a missed
 * call's params twice), so it is lock.h's futex lock, where a pthread mutex
 * costs several times that (c.miss: 134 instructions a call for two pairs,
 * now about 25). */
#include "switchboard_internal.h"
#include "lock.h"

static sb__lock nesting = SB__LOCK_INITIALIZER;

void sb__nesting_lock(void) { sb__lock_take(&nesting); }

void sb__nesting_unlock(void) { sb__lock_give(&nesting); }
