/*
 * live_threads.c - 16 threads calling hot functions while `vigil attach`
 * switches their counting sites on and off (issue 29, point 3): direct
 * calls, calls through a pointer, a recursion and a shared library's
 * function (live_lib.c, whose sites call through the GOT).  Each thread
 * checks every round of 1,000 iterations against the same sums computed
 * without calls; a site seen half rewritten would crash or break a sum.
 * "ready PID" once every thread runs; a line on stdin stops them, and the
 * output is then the same whatever the rounds were.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define NT 16
#define ROUND 1000

unsigned long lib_twice(unsigned long i);

static volatile int stop;
static unsigned long expected;
static unsigned long rounds[NT], wrong[NT];
static volatile int running;

__attribute__((noinline)) static unsigned long add3(unsigned long i)
{
	return i * 3 + 1;
}

__attribute__((noinline)) static unsigned long square(unsigned long i)
{
	return i * i;
}

__attribute__((noinline)) static unsigned long depth(unsigned long d)
{
	return d ? 1 + depth(d - 1) : 0;
}

static unsigned long (*volatile const fns[2])(unsigned long) = { add3, square };

static void *work(void *arg)
{
	long k = (long)arg;

	__atomic_add_fetch(&running, 1, __ATOMIC_SEQ_CST);
	while (!stop) {
		unsigned long s = 0, i;

		for (i = 0; i < ROUND; i++) {
			s += add3(i);
			s += fns[i & 1](i);
			s += depth(i & 7);
			s += lib_twice(i);
		}
		if (s != expected)
			wrong[k]++;
		rounds[k]++;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	unsigned long i, bad = 0, idle = 0;
	char line[16];
	long k;

	for (i = 0; i < ROUND; i++)
		expected += (i * 3 + 1) + ((i & 1) ? i * i : i * 3 + 1) +
			    (i & 7) + 2 * i;
	for (k = 0; k < NT; k++)
		pthread_create(&t[k], NULL, work, (void *)k);
	while (running < NT)
		usleep(1000);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
	stop = 1;
	for (k = 0; k < NT; k++) {
		pthread_join(t[k], NULL);
		bad += wrong[k];
		idle += rounds[k] == 0;
	}
	printf("threads %d, rounds wrong %lu, threads that ran no round %lu\n",
	       NT, bad, idle);
	return 0;
}
