/*
 * rebuilt.c - a program rebuilt in place with its functions in another
 * order (-DSWAPPED): alpha and beta have the same code, so each takes the
 * other's address.  Run, it calls alpha N times (argv[1]) and beta once.
 */
#include <stdlib.h>

static volatile int sink;

#ifndef SWAPPED
__attribute__((noinline)) void alpha(int i) { sink += i; }
__attribute__((noinline)) void beta(int i) { sink += i; }
#else
__attribute__((noinline)) void beta(int i) { sink += i; }
__attribute__((noinline)) void alpha(int i) { sink += i; }
#endif

int main(int argc, char **argv)
{
	int i, n = argc > 1 ? atoi(argv[1]) : 1000;

	for (i = 0; i < n; i++)
		alpha(i);
	beta(n);
	return 0;
}
