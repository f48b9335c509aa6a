/*
 * live_stall.c - the program of bench/entry_builds.py's live part (issue
 * 29, point 5): N instrumented functions (the generated fns[], nfns), one
 * thread calling each in turn for as long as it runs, and noting the
 * longest time between two of its clock readings (one every 64 calls): the
 * longest the program was kept from running, by the machine or by a live
 * switch of its counting.  "ready PID" once it runs; a line on stdin
 * stops it, and it prints the longest gap in microseconds and the calls
 * made.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

typedef void (*fp)(void);
extern fp fns[];
extern int nfns;

static volatile int stop, started;
static long long longest;
static unsigned long long calls;

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *work(void *arg)
{
	long long last = now_ns(), t;
	int i = 0, k;

	(void)arg;
	started = 1;
	while (!stop) {
		for (k = 0; k < 64; k++) {
			fns[i]();
			if (++i == nfns)
				i = 0;
		}
		calls += 64;
		t = now_ns();
		if (t - last > longest)
			longest = t - last;
		last = t;
	}
	return NULL;
}

int main(void)
{
	pthread_t t;
	char line[16];

	pthread_create(&t, NULL, work, NULL);
	while (!started)
		usleep(1000);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
	stop = 1;
	pthread_join(t, NULL);
	printf("longest %lld calls %llu\n", longest / 1000, calls);
	return 0;
}
