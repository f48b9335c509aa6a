/*
 * tick.c N USEC - calls f exactly N times, sleeping USEC microseconds
 * after each call, so it runs for about N * USEC.  Prints "ready" after
 * the first call (the profile exists by then) and, as its last line,
 * "end NS": CLOCK_MONOTONIC when main returns, so a harness can tell how
 * long after the program's end it got control back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile int sink;

__attribute__((noinline)) void f(void) { sink += 1; }

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	long usec = argc > 2 ? atol(argv[2]) : 2000;
	struct timespec d = { usec / 1000000, (usec % 1000000) * 1000 };
	struct timespec now;

	for (long i = 0; i < n; i++) {
		f();
		if (i == 0) {
			puts("ready");
			fflush(stdout);
		}
		nanosleep(&d, NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	printf("end %lld\n", (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
	return 0;
}
