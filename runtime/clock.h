/*
 * clock.h - the wall-clock time in nanoseconds (clock.c).  A floor of
 * the runtime.
 */
#ifndef VGL_RT_CLOCK_H
#define VGL_RT_CLOCK_H

#include <stdint.h>

uint64_t rt_now_ns(void);

#endif
