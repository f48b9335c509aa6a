/*
 * scratch_keep.c - a function that keeps every register for its callers
 * (no_caller_saved_registers, built with -mgeneral-regs-only as GCC asks),
 * and a caller with eleven values live across its call: Clang keeps two
 * of them in r10 and r11, which __fentry__'s fast path changes (issue 28,
 * point 14).  Prints the sum of 1000 rounds.
 */
#include <stdio.h>

volatile long g, v[16];

__attribute__((no_caller_saved_registers, noinline)) void tick(void)
{
	g++;
}

__attribute__((noinline)) long work(void)
{
	long a = v[0], b = v[1], c = v[2], d = v[3], e = v[4], f = v[5];
	long h = v[6], i = v[7], j = v[8], k = v[9], l = v[10];

	tick();
	return a + b * 2 + c * 3 + d * 4 + e * 5 + f * 6 + h * 7 + i * 8 +
	       j * 9 + k * 10 + l * 11;
}

int main(void)
{
	long s = 0;
	int n, m;

	for (n = 0; n < 1000; n++) {
		for (m = 0; m < 16; m++)
			v[m] = n + m;
		s += work();
	}
	printf("sum %ld\n", s);
	return 0;
}
