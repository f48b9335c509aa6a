/*
 * plot_target.c - the process `vigil plot`'s test watches: a thread named
 * "busy" that spins on the CPU and one named "sleeper" that sleeps, both
 * named (pthread_setname_np) before "ready" is printed; the process ends
 * argv[1] seconds later (default 2), so nothing is left running.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;
static volatile unsigned long sink;
static pthread_barrier_t named;

static void *busy(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "busy");
	pthread_barrier_wait(&named);
	while (!stop)
		sink++;
	return NULL;
}

static void *sleeper(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "sleeper");
	pthread_barrier_wait(&named);
	while (!stop)
		usleep(20000);
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	struct timespec ts = { (time_t)secs,
			       (long)((secs - (double)(time_t)secs) * 1e9) };
	pthread_t a, b;

	pthread_barrier_init(&named, NULL, 3);
	pthread_create(&a, NULL, busy, NULL);
	pthread_create(&b, NULL, sleeper, NULL);
	pthread_barrier_wait(&named);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	nanosleep(&ts, NULL);
	stop = 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
