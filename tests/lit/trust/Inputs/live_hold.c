/*
 * live_hold.c - programs that stop in the middle until told to go on, for
 * the tests of what readers make of a writer they cannot find by its pid
 * (a pid namespace of its own) and of one whose fork child lives on.
 *
 *   live_hold N       f() N times, print "ready", wait for stdin to
 *                     close, f() N times more, exit 0
 *   live_hold fork N  f() N times, fork and exit 0; the child calls
 *                     nothing instrumented: it waits until its parent has
 *                     exited, prints "ready", waits for stdin to close
 *                     and _exits 0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile long sink;

__attribute__((noinline)) void f(void) { sink++; }

static void wait_eof(void)
{
	char buf[64];

	while (read(0, buf, sizeof(buf)) > 0)
		;
}

int main(int argc, char **argv)
{
	int forks = argc > 2 && !strcmp(argv[1], "fork");
	int n = argc > 1 ? atoi(argv[argc - 1]) : 0, i;
	pid_t parent = getpid();

	for (i = 0; i < n; i++)
		f();
	if (forks) {
		const struct timespec ms = { 0, 1000000 };
		char buf[64];

		if (fork() != 0)
			return 0;
		while (getppid() == parent)
			nanosleep(&ms, NULL);
		/* No call of ours from here on (wait_eof() would count): the
		 * child never takes a file of its own. */
		if (write(1, "ready\n", 6) != 6)
			_exit(1);
		while (read(0, buf, sizeof(buf)) > 0)
			;
		_exit(0);
	}
	printf("ready\n");
	fflush(stdout);
	wait_eof();
	for (i = 0; i < n; i++)
		f();
	return 0;
}
