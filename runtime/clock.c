/*
 * clock.c - the wall-clock time the profile's META and its windows are
 * stamped with.  A floor of the runtime: it calls nothing above it.
 */
#include <stdint.h>
#include <time.h>

#include "clock.h"
#include "state.h"

uint64_t RT rt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
