/*
 * view_cycles.c - a cycle of calls in two threads (view-threads.test):
 * ping and pong call each other; main calls ping(3) (ping 2 calls, pong
 * 2), a thread started by main runs run, which calls ping(6) (ping 4,
 * pong 3).  Each thread's own graph has a cycle frame of its own calls.
 */
#include <pthread.h>

volatile int sink;

int pong(int n);

__attribute__((noinline)) int ping(int n)
{
	return n <= 0 ? 0 : pong(n - 1) + 1;
}

__attribute__((noinline)) int pong(int n)
{
	return n <= 0 ? 0 : ping(n - 1) + 1;
}

__attribute__((noinline)) void *run(void *arg)
{
	sink += ping(6);
	return arg;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, run, NULL);
	pthread_join(t, NULL);
	sink += ping(3);
	return 0;
}
