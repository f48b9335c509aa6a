/*
 * plot_target.c - the process `vigil plot`'s test watches: a thread named
 * "busy" that spins on the CPU and one named "sleeper" that sleeps, both
 * named (pthread_setname_np) before "ready" is printed; the process ends
 * when it has had argv[1] seconds of CPU time (default 2; "busy" spins,
 * so as many seconds later on an idle machine), so nothing is left
 * running.  CPU time, not wall time: on a loaded machine `vigil attach`
 * took longer to start than 0.5 s of wall time, and found it gone.
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
	struct timespec tick = { 0, 5000000 }, cpu;
	pthread_t a, b;

	pthread_barrier_init(&named, NULL, 3);
	pthread_create(&a, NULL, busy, NULL);
	pthread_create(&b, NULL, sleeper, NULL);
	pthread_barrier_wait(&named);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	do {
		nanosleep(&tick, NULL);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
	} while ((double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9 < secs);
	stop = 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
