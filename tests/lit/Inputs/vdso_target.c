/*
 * vdso_target.c - spends its time in the vDSO: prints "ready PID", then
 * calls clock_gettime(CLOCK_MONOTONIC) (the vDSO's __vdso_clock_gettime,
 * no system call) until it has had argv[1] ms of CPU time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	volatile long sum = 0;
	struct timespec ts;
	int i;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (cpu_ms() < ms)
		for (i = 0; i < 10000; i++) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			sum += ts.tv_nsec;
		}
	return 0;
}
