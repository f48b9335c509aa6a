/*
 * live_hold.c - a program that stops in the middle until told to go on:
 * f() N times, prints "ready", waits for its stdin to close, f() N times
 * more, and exits 0.  For the tests of what readers make of a writer they
 * cannot find by its pid (a pid namespace of its own).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile long sink;

__attribute__((noinline)) void f(void) { sink++; }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0, i;
	char buf[64];

	for (i = 0; i < n; i++)
		f();
	printf("ready\n");
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	for (i = 0; i < n; i++)
		f();
	return 0;
}
