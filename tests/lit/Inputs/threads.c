/* threads.c - 8 threads each call work() exactly 1,000,000 times. */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 8
#define NCALLS 1000000

volatile long sink;

__attribute__((noinline)) void work(long i) { sink = i; }

__attribute__((noinline)) void *worker(void *arg)
{
	for (long i = 0; i < NCALLS; i++)
		work(i);
	return arg;
}

int main(void)
{
	pthread_t t[NTHREADS];
	for (int i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, worker, NULL) != 0)
			return 1;
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	puts("done");
	return 0;
}
