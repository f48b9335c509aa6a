/*
 * deepstack.c [DEPTH [BYTES [SECONDS]]] - spins for SECONDS of CPU
 * (default 0.4) at the bottom of DEPTH + 1 calls of down() (default 24),
 * each with a frame of BYTES (default 1024): by default its stacks need about 25 KiB of stack
 * copied to be unwound to main (run/unwind-size.test); with 100 frames of
 * 16 bytes, few KiB but more frames than attach's lines hold
 * (attach/frames-cut.test).
 */
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;
static double seconds = 0.4;

static void spin(void)
{
	clock_t end = clock() + (clock_t)(CLOCKS_PER_SEC * seconds);

	while (clock() < end)
		sink++;
}

__attribute__((noinline)) void down(int depth, int bytes)
{
	volatile char frame[bytes];

	frame[0] = (char)depth;
	if (depth)
		down(depth - 1, bytes);
	else
		spin();
	sink += (unsigned long)frame[0];
}

int main(int argc, char **argv)
{
	if (argc > 3)
		seconds = atof(argv[3]);
	down(argc > 1 ? atoi(argv[1]) : 23, argc > 2 ? atoi(argv[2]) : 1024);
	return 0;
}
