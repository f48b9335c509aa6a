/* hot_inline.c - a hot static function (mix, from hot_inline.h) inlined
 * at -O2 into two callers, one of them run by a thread
 * (run/inlined-hosts.test).  In the entry mode mix has no call of its
 * own, only samples: host_a is called 3000 times by main, host_b 2000
 * times by worker.  worker, the thread's start function, is split by
 * GCC (ipa-split: the test of arg stays in worker, the loop goes to
 * worker.part.0) and the part inlined back into it: its DWARF holds an
 * inlined copy of worker inside worker. */
#include <pthread.h>

#include "hot_inline.h"

static volatile unsigned long sink;

__attribute__((noinline)) void host_a(unsigned long n)
{
	sink += mix(n);
}

__attribute__((noinline)) void host_b(unsigned long n)
{
	sink += mix(n ^ 0x5555);
}

static void *worker(void *arg)
{
	const unsigned long *rounds = arg;
	unsigned long i;

	if (!rounds || !*rounds)
		return NULL;
	for (i = 0; i < *rounds; i++)
		host_b(i);
	return NULL;
}

int main(void)
{
	static const unsigned long rounds = 2000;
	pthread_t t;
	unsigned long i;

	if (pthread_create(&t, NULL, worker, (void *)&rounds))
		return 1;
	for (i = 0; i < 3000; i++)
		host_a(i);
	pthread_join(t, NULL);
	return 0;
}
