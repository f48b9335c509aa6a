/* bythread.c - calls that differ per thread (by.test): main calls a() 3
 * times and starts two threads, one calling b() 5 times, one c() 7
 * times, both running at once (a thread started after another ended may
 * continue its records). */
#include <pthread.h>

volatile int sink;
static pthread_barrier_t both;     /* the two threads live at once */

__attribute__((noinline)) void a(void) { sink++; }
__attribute__((noinline)) void b(void) { sink++; }
__attribute__((noinline)) void c(void) { sink++; }

__attribute__((noinline)) void *run_b(void *arg)
{
	for (int i = 0; i < 5; i++)
		b();
	pthread_barrier_wait(&both);
	return arg;
}

__attribute__((noinline)) void *run_c(void *arg)
{
	for (int i = 0; i < 7; i++)
		c();
	pthread_barrier_wait(&both);
	return arg;
}

int main(void)
{
	pthread_t tb, tc;

	for (int i = 0; i < 3; i++)
		a();
	pthread_barrier_init(&both, NULL, 2);
	pthread_create(&tb, NULL, run_b, NULL);
	pthread_create(&tc, NULL, run_c, NULL);
	pthread_join(tb, NULL);
	pthread_join(tc, NULL);
	return 0;
}
