/*
 * deepstack.c - spins for about 0.4 s of CPU at the bottom of 24 calls of
 * down(), each with a 1 KiB frame: its stacks need about 25 KiB of stack
 * copied to be unwound to main (run/unwind-size.test).
 */
#include <time.h>

volatile unsigned long sink;

static void spin(void)
{
	clock_t end = clock() + CLOCKS_PER_SEC * 2 / 5;

	while (clock() < end)
		sink++;
}

__attribute__((noinline)) void down(int depth)
{
	volatile char frame[1024];

	frame[0] = (char)depth;
	if (depth)
		down(depth - 1);
	else
		spin();
	sink += (unsigned long)frame[0];
}

int main(void)
{
	down(23);
	return 0;
}
