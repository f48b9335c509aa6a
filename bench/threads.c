/*
 * Benchmark workload 3: T threads calling the same small functions.
 *
 * Each thread does the same fixed amount of work, so on enough cores the
 * wall time stays constant as T grows while CPU time grows with T.  A hook
 * that writes shared cache lines (a global counter, a lock) shows up here as
 * CPU per call growing with T; a per-thread hook does not.
 *
 * usage: threads [T [ITERS]]   (defaults 1, 20000000; ITERS per thread)
 * stdout: the checksum; stderr: "calls=C", calls summed over all threads.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long iters = 20000000UL;

__attribute__((noinline)) static unsigned long mix(unsigned long x)
{
	return (x ^ (x >> 31)) * 0x7fb5d329728ea185UL;
}

__attribute__((noinline)) static unsigned long step(unsigned long x,
						    unsigned long i)
{
	return x + (i & 7) + 1;
}

static void *worker(void *arg)
{
	unsigned long x = (unsigned long)arg;

	for (unsigned long i = 0; i < iters; i++)
		x = step(mix(x), i);
	return (void *)x;
}

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 1;
	if (argc > 2)
		iters = strtoul(argv[2], NULL, 0);
	if (nthreads < 1 || nthreads > 256) {
		fprintf(stderr, "threads: bad thread count\n");
		return 2;
	}

	pthread_t tid[256];
	unsigned long sum = 0;
	for (int t = 0; t < nthreads; t++)
		if (pthread_create(&tid[t], NULL, worker, (void *)(t + 1UL))) {
			fprintf(stderr, "threads: pthread_create failed\n");
			return 1;
		}
	for (int t = 0; t < nthreads; t++) {
		void *r;
		pthread_join(tid[t], &r);
		sum ^= (unsigned long)r;
	}
	printf("threads=%d checksum = %lu\n", nthreads, sum);
	/* two calls per iteration, plus worker() itself once per thread */
	fprintf(stderr, "calls=%lu\n", nthreads * (2 * iters + 1));
	return 0;
}
