/*
 * spin.c - one thread on a CPU: prints "ready PID", spins until it has
 * had argv[1] seconds of CPU time (default 1) and exits, so nothing is
 * left running.  CPU time, not wall time: on a loaded machine `vigil
 * attach` took longer to start than 1 s of wall time, and found the
 * target gone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1, t0 = now();
	int i;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (now() - t0 < secs)
		for (i = 0; i < 100000; i++)
			sink++;
	return 0;
}
