/*
 * badnames.c - names that are not UTF-8, as programs can make them: a
 * function whose symbol is set with an asm label, a thread named with
 * pthread_setname_np, both to the bytes "w\xe9\xff\xfe" (Latin-1 e-acute,
 * then two bytes no UTF-8 text holds).  The thread calls that function 3
 * times.  Given "spin SECONDS", the thread then keeps running that long
 * (for vigil attach), and main prints "ready PID" once it spins; the
 * program's stdout stays open until it ends.  Given "exit N", it exits with status N.  Any
 * other arguments are only recorded.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) void weird(void) __asm__("w\xe9\xff\xfe");
__attribute__((noinline)) void weird(void)
{
	__asm__ volatile("");
}

static double secs;

/* Set by main once the spin time is over.  The worker only reads it, so
 * every CPU sample of the spinning thread lands in worker itself: no
 * clock_gettime in the loop, whose vDSO or kernel frames a loaded machine
 * would catch now and then. */
static volatile int stop;

/* Set by the worker just before it spins, so "ready" is printed only then:
 * a sampler attached on "ready" sees no thread start (pthread_create in
 * main, the new thread's set-up) in its first samples. */
static volatile int started;

static void *worker(void *arg)
{
	volatile unsigned long n = 0;
	int i;

	(void)arg;
	pthread_setname_np(pthread_self(), "w\xe9\xff\xfe");
	for (i = 0; i < 3; i++)
		weird();
	started = 1;
	while (secs > 0 && !stop)
		n++;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int status = 0;

	if (argc > 2 && !strcmp(argv[1], "spin"))
		secs = atof(argv[2]);
	if (argc > 2 && !strcmp(argv[1], "exit"))
		status = atoi(argv[2]);
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	if (secs > 0) {
		struct timespec ms = { 0, 1000000 };

		while (!started)
			nanosleep(&ms, NULL);
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
	}
	if (secs > 0) {
		struct timespec ts = { (time_t)secs,
				       (long)((secs - (time_t)secs) * 1e9) };

		while (nanosleep(&ts, &ts))
			;
		stop = 1;
	}
	pthread_join(t, NULL);
	return status;
}
