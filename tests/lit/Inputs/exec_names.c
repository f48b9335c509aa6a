/*
 * exec_names.c - a process whose samples before an exec must be named
 * against the image that ran them (tests/e2e/execnames.py, issue 16
 * point 6).  Built twice, non-PIE, so both images load at one address:
 * without -DSWAP, spin_a comes before spin_b; with it, after, and as the
 * two are of one size, each has the other's address in the other image.
 * A sample of spin_a named against the image built with -DSWAP would
 * be called spin_b, which that image never runs.
 *
 *   exec_names IMAGE2   prints "ready", waits for a line on stdin,
 *                        spins in spin_a for 0.4 s of CPU time, then
 *                        execs IMAGE2 with no argument
 *   exec_names           (the image exec'd) spins in spin_c for 0.4 s,
 *                        prints "done", and exits 0 at the next line on
 *                        stdin (its maps are there to read until then)
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

static NOINLINE double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define SPIN(name, k)                                           \
	NOINLINE void name(double s)                            \
	{                                                       \
		double end = cpu_now() + s;                     \
		unsigned long i;                                \
		while (cpu_now() < end)                         \
			for (i = 0; i < 100000; i++)            \
				sink += i ^ (sink >> k);        \
	}

#ifndef SWAP
SPIN(spin_a, 3)
SPIN(spin_b, 4)
#else
SPIN(spin_b, 4)
SPIN(spin_a, 3)
#endif
SPIN(spin_c, 5)

int main(int argc, char **argv)
{
	char line[64];

	if (argc < 2) {
		spin_c(0.4);
		printf("done\n");
		fflush(stdout);
		return !fgets(line, sizeof(line), stdin);
	}
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	spin_a(0.4);
	execl(argv[1], argv[1], (char *)NULL);
	perror("execl");
	return 1;
}
