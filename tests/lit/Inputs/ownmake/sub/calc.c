/* calc.c - the calls ownmake.test counts: step 100 times, twice 25. */
#include "calc.h"

__attribute__((noinline)) int step(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

__attribute__((noinline)) int twice(int x)
{
	__asm__ volatile("" : "+r"(x));
	return 2 * x;
}
