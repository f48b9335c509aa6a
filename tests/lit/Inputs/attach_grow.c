/*
 * attach_grow.c - a counted program whose profile grows while it is read
 * (tests/lit/attach/counts-live.test): after "ready PID" and 0.3 s, it
 * starts 1500 threads that stay alive, 4 every 0.5 ms.  Each new thread's
 * first call gives it a block of its own in the profile's arena, so the
 * arena's used count moves about 8 times a millisecond.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define THREADS 1500

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int done;

__attribute__((noinline)) int first_call(int x)
{
	return x + 1;
}

static void *run(void *arg)
{
	first_call((int)(long)arg);
	pthread_mutex_lock(&lock);
	while (!done)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	static pthread_t t[THREADS];
	int i;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	usleep(300000);
	for (i = 0; i < THREADS; i++) {
		if (pthread_create(&t[i], NULL, run, (void *)(long)i))
			return 1;
		if (i % 4 == 3)
			usleep(500);
	}
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
