/*
 * attach_counts.c - an instrumented target for `vigil attach --scan
 * counts`: prints "ready", waits for a line on stdin, then 4 threads each
 * call work() 1000 times in each of 200 rounds, 2 ms apart (about 0.5 s
 * in all, so samples every few ms see the counts grow), and main returns
 * 0 after joining them.  Exactly 800,000 calls of work from worker.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define NTHREADS 4

volatile long sink;

__attribute__((noinline)) void work(long i) { sink = i; }

__attribute__((noinline)) void *worker(void *arg)
{
	struct timespec d = { 0, 2000000 };

	for (int r = 0; r < 200; r++) {
		for (long i = 0; i < 1000; i++)
			work(i);
		nanosleep(&d, NULL);
	}
	return arg;
}

int main(void)
{
	pthread_t t[NTHREADS];
	char line[16];

	puts("ready");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	for (int i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, worker, NULL) != 0)
			return 1;
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
