/*
 * stacks_target.c - the processes the stack-sampling tests attach to
 * (tests/e2e/stacks.py); argv[1] picks one.  Each prints "ready ..." once
 * set up.  Built by the tests with -O2 -fomit-frame-pointer, as
 * distributions build: nothing here may rely on frame pointers.  Every
 * function of the call tree is noinline and does work after its call, so
 * that neither inlining nor tail calls take a level out of the tree.
 *
 *   fork      prints "ready" and spins in parent_spin() (main ->
 *             parent_work -> parent_spin); a line on stdin forks a child
 *             spinning in child_spin() for ever ("child PID"); stdin's
 *             end kills both
 *   tree      main -> level1 -> level2 -> level3 -> level4 for ever, each
 *             level spending some time of its own; prints "ready"
 *   brief MS  like tree for MS milliseconds of wall time, then prints
 *             "cpu_ms N" (its CPU time) and exits 0
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

static NOINLINE void burn(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		sink += i ^ (sink >> 3);
}

/* The leaves spin on their own (no call), so that the first frame of a
 * sample names them whatever the unwinding. */
static NOINLINE void child_spin(void)
{
	unsigned long i;

	for (i = 0;; i++)
		sink += i ^ (sink >> 3);
}

static NOINLINE void parent_spin(void)
{
	unsigned long i;

	for (i = 0; i < 1000000; i++)
		sink += i ^ (sink >> 3);
}

static NOINLINE void parent_work(void)
{
	parent_spin();
	sink++;
}

static NOINLINE void level4(void)
{
	burn(40000);
#ifdef REBUILT
	/* Another build of the same program (tests/e2e/stacks.py names). */
	sink *= 3;
#endif
	sink++;
}

static NOINLINE void level3(void)
{
	level4();
	burn(10000);
	sink++;
}

static NOINLINE void level2(void)
{
	level3();
	burn(10000);
	sink++;
}

static NOINLINE void level1(void)
{
	level2();
	burn(10000);
	sink++;
}

static pid_t child = -1;

/* The fork mode's second thread: forks the spinning child on a line of
 * stdin (so after the sampler is on: only then does an inherited event
 * follow it), and ends the child and the process at stdin's end. */
static void *watcher(void *arg)
{
	char buf[64];

	(void)arg;
	while (fgets(buf, sizeof(buf), stdin)) {
		if (child > 0)
			continue;
		child = fork();
		if (!child)
			child_spin();
		printf("child %d\n", (int)child);
		fflush(stdout);
	}
	if (child > 0)
		kill(child, SIGKILL);
	exit(0);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	/* Never outlive the test that started us. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);

	if (!strcmp(mode, "fork")) {
		pthread_t t;

		if (pthread_create(&t, NULL, watcher, NULL))
			return 1;
		printf("ready\n");
		fflush(stdout);
		for (;;)
			parent_work();
	}
	if (!strcmp(mode, "tree")) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			level1();
	}
	if (!strcmp(mode, "brief") && argc > 2) {
		double end = now() + atof(argv[2]) / 1000;

		printf("ready\n");
		fflush(stdout);
		struct timespec cpu;

		while (now() < end)
			level1();
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
		printf("cpu_ms %ld\n", (long)cpu.tv_sec * 1000 +
		       cpu.tv_nsec / 1000000);
		fflush(stdout);
		return 0;
	}
	fprintf(stderr, "usage: stacks_target fork|tree|brief MS\n");
	return 2;
}
