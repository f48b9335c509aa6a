/*
 * harmless.c - output and exit status that must not change when the
 * profile cannot be written.  leaf() is called from 4096 distinct call
 * sites (4096 call edges, more than a profile's first pages hold), so the
 * runtime has to grow its file while the program runs.  Exits with 5.
 */
#include <stdio.h>

volatile unsigned sink;

__attribute__((noinline)) unsigned leaf(unsigned x) { return x * 2654435761u + 1; }

#define C1 s = leaf(s) ^ (s >> 3);
#define C4 C1 C1 C1 C1
#define C16 C4 C4 C4 C4
#define C64 C16 C16 C16 C16
#define C256 C64 C64 C64 C64
#define C1024 C256 C256 C256 C256

__attribute__((noinline)) unsigned many(unsigned s)
{
	C1024 C1024 C1024 C1024
	return s;
}

int main(void)
{
	unsigned s = 1;
	for (int round = 0; round < 3; round++) {
		s = many(s);
		printf("round %d: %08x\n", round, s);
	}
	puts("done");
	return 5;
}
