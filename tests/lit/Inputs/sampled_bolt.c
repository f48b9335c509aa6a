/* sampled_bolt.c - a program that `vigil attach` samples and llvm-bolt
 * rewrites with the samples (fdata-sampled.test): main -> work ->
 * hot (most of the time) and cold.  With "spin" it keeps working until
 * a line or EOF on stdin, so a sampler can watch it as long as it likes;
 * its output (a checksum of one fixed round of work) never depends on
 * how long it ran, so the rewritten binary's output can be compared. */
#include <poll.h>
#include <stdio.h>
#include <string.h>

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

static int stdin_ready(void)
{
	struct pollfd p = { .fd = 0, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

int main(int argc, char **argv)
{
	unsigned long s = work(1);

	if (argc > 1 && !strcmp(argv[1], "spin"))
		while (!stdin_ready())
			sink += work(2);
	printf("checksum %lu\n", s);
	return 0;
}
