/*
 * phases.c - two phases of CPU, for the timeline of `vigil view`: after
 * SLEEP_MS asleep (while the sampler starts), a() spins for 0.6 s of the
 * clock, then b() for as long.  Prints the CLOCK_REALTIME time, in ns,
 * at which b() began, so that a test can tell the readings of the first
 * phase from the file's own times.  Built without instrumentation and
 * with frame pointers, so stacks can be walked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static unsigned long long now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull +
	       (unsigned long long)ts.tv_nsec;
}

static void spin(unsigned long long ns)
{
	unsigned long long end = now_ns(CLOCK_MONOTONIC) + ns;

	while (now_ns(CLOCK_MONOTONIC) < end)
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i;
}

__attribute__((noinline)) static void a(void)
{
	spin(600000000ull);
}

__attribute__((noinline)) static void b(void)
{
	spin(600000000ull);
}

int main(int argc, char **argv)
{
	usleep(argc > 1 ? (useconds_t)atoi(argv[1]) * 1000 : 300000);
	a();
	printf("%llu\n", now_ns(CLOCK_REALTIME));
	fflush(stdout);
	b();
	return 0;
}
