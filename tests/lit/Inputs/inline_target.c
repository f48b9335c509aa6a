/*
 * inline_target.c - a host whose time is all in functions forced inline
 * (tests/e2e/inlined.py, issue 16 point 2).  Built with -O2 -g and no
 * frame pointers: host_fn is the only out-of-line frame of its samples,
 * and its DWARF says which instructions are inlined copies of
 * burn_outer, and of burn_inner inside it.
 *
 * Runs for argv[1] seconds of CPU time (default 1), then exits 0.
 */
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))
#define ALWAYS_INLINE static inline __attribute__((always_inline))

static volatile unsigned long sink;

static NOINLINE double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

ALWAYS_INLINE void burn_inner(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		sink += i ^ (sink >> 3);
}

ALWAYS_INLINE void burn_outer(unsigned long n)
{
	burn_inner(n);
}

NOINLINE void host_fn(double seconds)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end)
		burn_outer(1000000);
}

int main(int argc, char **argv)
{
	host_fn(argc > 1 ? atof(argv[1]) : 1.0);
	return 0;
}
