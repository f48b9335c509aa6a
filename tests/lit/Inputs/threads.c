/*
 * threads.c [kill] - 8 threads each call work() exactly 1,000,000 times.
 *
 * Without arguments the threads end and main joins them.  With "kill"
 * they stay alive after their calls (blocked in a barrier that never
 * opens), main prints "ready" and sleeps until the test SIGKILLs it: the
 * counts of threads that never exited must be in the file too.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NTHREADS 8
#define NCALLS 1000000

volatile long sink;
static pthread_barrier_t done, never;
static int stay;

__attribute__((noinline)) void work(long i) { sink = i; }

__attribute__((noinline)) void *worker(void *arg)
{
	for (long i = 0; i < NCALLS; i++)
		work(i);
	if (stay) {
		pthread_barrier_wait(&done);
		pthread_barrier_wait(&never);
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[NTHREADS];

	stay = argc > 1 && !strcmp(argv[1], "kill");
	pthread_barrier_init(&done, NULL, NTHREADS + 1);
	pthread_barrier_init(&never, NULL, NTHREADS + 2);
	for (int i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, worker, NULL) != 0)
			return 1;
	if (stay) {
		pthread_barrier_wait(&done);
		puts("ready");
		fflush(stdout);
		for (;;)
			pause();
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	puts("done");
	return 0;
}
