/*
 * clock.h - the one reading of a clock as nanoseconds, for the sampler,
 * the readers and the commands (it was written out in each of them).
 */
#ifndef VGL_CLOCK_H
#define VGL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Clock c (CLOCK_MONOTONIC, CLOCK_REALTIME, a CPU clock) in ns. */
uint64_t vgl_clock_ns(clockid_t c);

#endif
