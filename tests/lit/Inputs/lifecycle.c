/*
 * lifecycle.c - programs that live the way daemons, shells and build
 * tools do, for the tests of where profiles go and when they are final.
 * Linked with funcs.c from genfuncs.py (fns[], nfns).
 *
 *   count N        f() N times
 *   closeall N     close_range(3, ~0U) first, then f() N times, print
 *                  "ready" and wait for stdin to close
 *   forkexec N     make nfns edges, then fork and exec /bin/true N times
 *   forkcount N    fork N children that each call f() 10 times, or _exit
 *                  at once (every other one)
 *   dtor N         f() once, and N times in a destructor that first
 *                  prints "in destructor" and waits for stdin to close
 *   chdir DIR N    f() N times, chdir to DIR, f() N more times, sleeping
 *                  1 ms between calls
 *   spin [snapshot]  f() for ever, printing "ready" after 100 ms (with
 *                  snapshot: a window snapshot first, then 1000 calls)
 *   forktasks      fork; the child counts its threads (libc calls only,
 *                  no instrumented call) and prints "child tasks N"
 *   forkthread     (nfns >= 300) threads that end, fns[0..100), then fork:
 *                  the child's first calls come from a new thread
 *                  (fns[100..200)), then its main thread (fns[200..300),
 *                  fns[0..100)); the parent then calls fns[0..300)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vigil.h"

typedef void (*fp)(void);
extern fp fns[];
extern int nfns;

volatile long sink;
static int dtor_calls;

__attribute__((noinline)) void f(void) { sink++; }

static void *call_f(void *arg)
{
	(void)arg;
	f();
	return NULL;
}

static void *call_range(void *arg)
{
	int *r = arg, i;

	for (i = r[0]; i < r[1]; i++)
		fns[i]();
	return NULL;
}

static int forkthread(void)
{
	static int second[2] = { 100, 200 };
	pthread_t th;
	int i, status;
	pid_t c;

	for (i = 0; i < 3; i++) {
		pthread_create(&th, NULL, call_f, NULL);
		pthread_join(th, NULL);
	}
	for (i = 0; i < 100; i++)
		fns[i]();
	c = fork();
	if (c == 0) {
		pthread_create(&th, NULL, call_range, second);
		pthread_join(th, NULL);
		for (i = 200; i < 300; i++)
			fns[i]();
		for (i = 0; i < 100; i++)
			fns[i]();
		exit(0);
	}
	if (c < 0 || waitpid(c, &status, 0) != c || status)
		return 1;
	for (i = 0; i < 300; i++)
		fns[i]();
	printf("parent %d\nchild %d\n", (int)getpid(), (int)c);
	return 0;
}

static void wait_eof(void)
{
	char c;

	while (read(0, &c, 1) > 0)
		;
}

__attribute__((destructor)) static void late(void)
{
	int i;

	if (!dtor_calls)
		return;
	printf("in destructor\n");
	fflush(stdout);
	wait_eof();
	for (i = 0; i < dtor_calls; i++)
		f();
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[argc - 1]) : 0, i, status;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "count")) {
		for (i = 0; i < n; i++)
			f();
		printf("counted %d\n", n);
		return 0;
	}
	if (!strcmp(argv[1], "closeall")) {
		syscall(SYS_close_range, 3u, ~0u, 0u);
		for (i = 0; i < n; i++)
			f();
		printf("ready\n");
		fflush(stdout);
		wait_eof();
		return 0;
	}
	if (!strcmp(argv[1], "forkexec")) {
		for (i = 0; i < nfns; i++)
			fns[i]();
		for (i = 0; i < n; i++) {
			pid_t c = fork();

			if (c == 0) {
				execl("/bin/true", "true", (char *)NULL);
				_exit(127);
			}
			if (c < 0 || waitpid(c, &status, 0) != c || status)
				return 1;
		}
		printf("forked %d\n", n);
		return 0;
	}
	if (!strcmp(argv[1], "forkcount")) {
		for (i = 0; i < n; i++) {
			pid_t c = fork();

			if (c == 0) {
				int k;

				if (i % 2)
					_exit(0);
				for (k = 0; k < 10; k++)
					f();
				exit(0);
			}
			if (c < 0 || waitpid(c, &status, 0) != c || status)
				return 1;
		}
		printf("forked %d\n", n);
		return 0;
	}
	if (!strcmp(argv[1], "forkthread"))
		return forkthread();
	if (!strcmp(argv[1], "forktasks")) {
		pid_t c;

		f();
		c = fork();
		if (c == 0) {
			DIR *d = opendir("/proc/self/task");
			struct dirent *e;
			int tasks = 0;

			while (d && (e = readdir(d)))
				tasks += e->d_name[0] != '.';
			printf("child tasks %d\n", tasks);
			fflush(stdout);
			_exit(0);
		}
		if (c < 0 || waitpid(c, &status, 0) != c || status)
			return 1;
		return 0;
	}
	if (!strcmp(argv[1], "spin")) {
		struct timespec t0, t;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (i = 0;; i++) {
			f();
			if (i % 1000 || i < 0)
				continue;
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec >= 1 ||
			    (t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec -
					    t0.tv_nsec > 100000000L) {
				int k;

				/* A window now, then calls that no window
				 * holds before anyone hears "ready". */
				if (argc > 2 && !strcmp(argv[2], "snapshot"))
					vigil_snapshot();
				for (k = 0; k < 1000; k++)
					f();
				printf("ready\n");
				fflush(stdout);
				i = -2000000000;
			}
		}
	}
	if (!strcmp(argv[1], "dtor")) {
		f();
		dtor_calls = n;
		return 0;
	}
	if (!strcmp(argv[1], "chdir") && argc > 3) {
		struct timespec ms = { 0, 1000000 };

		for (i = 0; i < n; i++) {
			f();
			nanosleep(&ms, NULL);
		}
		if (chdir(argv[2]) < 0)
			return 1;
		for (i = 0; i < n; i++) {
			f();
			nanosleep(&ms, NULL);
		}
		printf("moved\n");
		return 0;
	}
	return 2;
}
