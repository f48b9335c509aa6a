/*
 * attach_crowd.c - a process with many threads for `vigil attach` (issue
 * 28): argv[1] threads (3000 if not given), each on a 64 KiB stack and
 * blocked on one condition variable for ever, so that a scan of its
 * /proc/PID/task is long while the process itself costs no CPU.  Prints
 * "ready N" when all N are started, then waits for a line on stdin (or its
 * end) and exits 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static void *idle(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;)
		pthread_cond_wait(&never, &lock);
	return NULL;
}

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? strtol(argv[1], NULL, 10) : 3000;
	pthread_attr_t at;
	pthread_t t;
	char line[64];

	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 64 * 1024);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	for (i = 0; i < n; i++) {
		if (pthread_create(&t, &at, idle, NULL)) {
			fprintf(stderr, "attach_crowd: thread %ld: cannot start\n", i);
			return 1;
		}
	}
	printf("ready %ld\n", n);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin)) {
		/* stdin ended: exit as on a line. */
	}
	return 0;
}
