/*
 * asgrab.c - how much memory can the program have: calls f, sleeps
 * argv[1] milliseconds (a runtime thread may start meanwhile), then
 * allocates 1 MiB blocks (never freed) until malloc fails, at most 2000;
 * prints "got N MiB".  Under a tight RLIMIT_AS (ulimit -v) N is what the
 * limit leaves the program.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile int sink;

__attribute__((noinline)) void f(void) { sink++; }

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 0;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	int n;

	f();
	nanosleep(&ts, NULL);
	for (n = 0; n < 2000 && malloc(1 << 20); n++)
		f();
	printf("got %d MiB\n", n);
	return 0;
}
