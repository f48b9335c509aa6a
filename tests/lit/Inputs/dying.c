/*
 * dying.c MODE - processes that are still ending when their parent has
 * gone, for `vigil run` (tests/lit/run/dying.test).  f() counts the
 * calls each process makes.
 *
 *   kill N   forks N children; each calls f() 10 times, starts a thread
 *            that spins at nice 19 and pauses.  Once every thread spins,
 *            the parent SIGKILLs them all and exits at once, without
 *            waiting: each child's main thread is a zombie at once, its
 *            spinning thread (and the mapping of its profile) goes only
 *            when it next gets a CPU, later still on a busy machine.
 *   leader   the main thread calls f() 10 times and ends with
 *            pthread_exit, the process living on in a thread that sleeps
 *            0.5 s, calls f() 10 times and ends it (status 0): its main
 *            thread is a zombie for 0.5 s while the process runs.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

volatile long sink;

__attribute__((noinline)) void f(long i) { sink = i; }

static int ready[2];

static void *spin(void *arg)
{
	(void)arg;
	setpriority(PRIO_PROCESS, 0, 19);   /* this thread only (Linux) */
	if (write(ready[1], "r", 1) != 1)
		_exit(1);
	for (;;)
		sink++;
	return NULL;
}

static void *late(void *arg)
{
	struct timespec ts = { 0, 500000000 };
	long i;

	nanosleep(&ts, NULL);
	for (i = 0; i < 10; i++)
		f(i);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	pid_t kids[64];
	int n, i, k;
	char c;

	for (i = 0; i < 10; i++)
		f(i);
	if (argc > 1 && !strcmp(argv[1], "leader")) {
		if (pthread_create(&t, NULL, late, NULL))
			return 1;
		pthread_exit(NULL);
	}
	if (argc < 3 || strcmp(argv[1], "kill"))
		return 2;
	n = atoi(argv[2]);
	if (n < 1 || n > 64 || pipe(ready))
		return 2;
	for (k = 0; k < n; k++) {
		kids[k] = fork();
		if (kids[k] < 0)
			return 1;
		if (kids[k] == 0) {
			for (i = 0; i < 10; i++)
				f(i);
			if (pthread_create(&t, NULL, spin, NULL))
				_exit(1);
			for (;;)
				pause();
		}
	}
	for (k = 0; k < n; k++)
		if (read(ready[0], &c, 1) != 1)
			return 1;
	for (k = 0; k < n; k++)
		kill(kids[k], SIGKILL);
	return 0;
}
