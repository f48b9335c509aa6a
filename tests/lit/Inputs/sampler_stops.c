/*
 * sampler_stops.c - G6 through the library: sampler_stop() returns within
 * 0.5 s in 100 repetitions, stopped at random moments with intervals from
 * 1 ms to 1 h and random scan sets, and no callback runs after it has
 * returned.  The target is a child that waits for ever (killed at the
 * end).  Prints "100 stops, max N us" and exits 0, or one line per
 * problem and exits 1.
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "sampler.h"

static atomic_int calls, after_stop;
static atomic_int stopped;

static void on_sample(const struct sampler_sample *s, void *arg)
{
	(void)s;
	(void)arg;
	calls++;
	if (stopped)
		after_stop++;
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

int main(void)
{
	static const uint64_t intervals[] = {
		1000000ull, 7000000ull, 100000000ull, 10000000000ull,
		3600000000000ull,
	};
	static const unsigned scans[] = {
		SAMPLER_SCAN_CPU, SAMPLER_SCAN_DEFAULT, SAMPLER_SCAN_ALL,
		SAMPLER_SCAN_THREADS | SAMPLER_SCAN_STACKS,
		SAMPLER_SCAN_HOST_CPU | SAMPLER_SCAN_IO,
	};
	char err[SAMPLER_ERR_LEN];
	uint64_t t0, took, max = 0;
	int i, bad = 0, first_calls;
	pid_t child;

	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	srand((unsigned)getpid());
	for (i = 0; i < 100; i++) {
		struct sampler_config cfg = {
			.pid = child,
			.interval_ns = intervals[rand() % 5],
			.scan = scans[rand() % 5],
			.frequency = 999,
			.fn = on_sample,
		};
		struct sampler *s;

		stopped = 0;
		if (sampler_start(&s, &cfg, err, sizeof(err))) {
			printf("FAIL: sampler_start: %s\n", err);
			bad = 1;
			break;
		}
		/* A random moment: inside the first sample, a wait, or a
		 * change of interval. */
		usleep((useconds_t)(rand() % 20000));
		if (rand() % 3 == 0)
			sampler_set_interval(s, intervals[rand() % 5], err,
					     sizeof(err));
		t0 = mono_us();
		sampler_stop(s);
		took = mono_us() - t0;
		stopped = 1;
		if (took > max)
			max = took;
		if (took > 500000) {
			printf("FAIL: stop %d took %llu us at interval %llu ns\n",
			       i, (unsigned long long)took,
			       (unsigned long long)cfg.interval_ns);
			bad = 1;
		}
	}
	first_calls = calls;
	usleep(20000);
	if (after_stop || calls != first_calls) {
		printf("FAIL: %d callbacks after sampler_stop returned\n",
		       (int)after_stop + calls - first_calls);
		bad = 1;
	}
	if (calls < 100) {
		printf("FAIL: only %d samples in 100 runs (each takes one at once)\n",
		       (int)calls);
		bad = 1;
	}
	kill(child, SIGKILL);
	printf("100 stops, max %llu us\n", (unsigned long long)max);
	return bad;
}
