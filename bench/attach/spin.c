/*
 * spin.c - the target whose slow-down under stack sampling `make bench`
 * measures: waits for a line on stdin (so the sampler can attach first),
 * runs a fixed amount of CPU work through three levels of calls with frame
 * pointers, prints the CPU time the work took in ns and exits.  CPU time,
 * not wall time: on a machine shared with other work, the wall time
 * measures the neighbours more than the sampler; the sampler's cost in
 * the target (its interrupts, the kernel's stack walks) is CPU time of
 * the target.
 *
 * usage: spin ITERS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void leaf(unsigned long i)
{
	sink += i ^ (i >> 3);
}

__attribute__((noinline)) void mid(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		leaf(i);
}

__attribute__((noinline)) void top(unsigned long iters)
{
	for (unsigned long i = 0; i < iters; i += 1000)
		mid(1000);
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	char line[16];

	if (argc != 2 || !fgets(line, sizeof(line), stdin))
		return 2;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	top(strtoul(argv[1], NULL, 10));
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	printf("%lld\n", (long long)(b.tv_sec - a.tv_sec) * 1000000000LL +
	       (b.tv_nsec - a.tv_nsec));
	return 0;
}
