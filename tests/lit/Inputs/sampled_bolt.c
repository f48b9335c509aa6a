/* sampled_bolt.c - a program that `vigil attach` samples and llvm-bolt
 * rewrites with the samples (fdata-sampled.test): main -> work ->
 * hot (most of the time) and cold.  With "spin MS" it keeps working
 * until it has had MS milliseconds of CPU time, so a sampler watching it
 * gets the same number of samples on an idle or a loaded machine (a wall
 * time would give fewer under load); its output (a checksum of one fixed
 * round of work) never depends on how long it ran, so the rewritten
 * binary's output can be compared. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long hot(unsigned long x)
{
	unsigned long i, s = x;

	for (i = 0; i < 200000; i++)
		s = s * 6364136223846793005ul + i;
	return s;
}

__attribute__((noinline)) unsigned long cold(unsigned long x)
{
	return x ^ (x >> 7);
}

__attribute__((noinline)) unsigned long work(unsigned long seed)
{
	unsigned long s = seed;
	int i;

	for (i = 0; i < 20; i++)
		s = hot(s) + cold(s);
	return s;
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	unsigned long s = work(1);

	if (argc > 2 && !strcmp(argv[1], "spin"))
		while (cpu_ms() < atof(argv[2]))
			sink += work(2);
	printf("checksum %lu\n", s);
	return 0;
}
