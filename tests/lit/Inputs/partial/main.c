/*
 * main.c - the instrumented half of a partly instrumented program
 * (check-partial.test): main and its own static work() are built with
 * vigil's flags; util.c's helpers are built without them.
 */
#include <stdio.h>

int helper_a(int x);
int helper_b(int x);

static __attribute__((noinline)) int work(int x)
{
	return helper_a(x) + helper_b(x);
}

int main(void)
{
	int i, s = 0;

	for (i = 0; i < 10; i++)
		s += work(i);
	printf("%d\n", s);
	return 0;
}
