/*
 * ending.c - the same fixed calls, then one of the ways a program can end.
 *
 * main calls f exactly 1000 times and g exactly 7 times, then ends as
 * argv[1] says: return (0), exit (3), _exit (4), abort, segv, sigterm,
 * kill (prints "ready" and sleeps until the test SIGKILLs it), or
 * exec PROG (execv PROG, which counts its own calls in its own file).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile int sink;

__attribute__((noinline)) void f(void) { sink += 1; }
__attribute__((noinline)) void g(void) { sink += 2; }

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "return";
	int i;

	for (i = 0; i < 1000; i++)
		f();
	for (i = 0; i < 7; i++)
		g();

	if (!strcmp(how, "return"))
		return 0;
	if (!strcmp(how, "exit"))
		exit(3);
	if (!strcmp(how, "_exit"))
		_exit(4);
	if (!strcmp(how, "abort"))
		abort();
	if (!strcmp(how, "segv"))
		*(volatile int *)0 = 1;
	if (!strcmp(how, "sigterm"))
		raise(SIGTERM);
	if (!strcmp(how, "kill")) {
		puts("ready");
		fflush(stdout);
		for (;;)
			pause();
	}
	if (!strcmp(how, "exec") && argc > 2) {
		execv(argv[2], (char *[]){ argv[2], NULL });
		perror("execv");
		return 98;
	}
	fprintf(stderr, "ending: unknown ending '%s'\n", how);
	return 99;
}
