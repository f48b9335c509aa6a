/*
 * harmless.c - output and exit status that must not change when the
 * profile cannot be written.  Each of 256 call sites calls each of 16
 * leaf functions through a pointer table: 4096 distinct call edges, more
 * than a profile's first pages hold, so the runtime has to grow its file
 * while the program runs.  Exits with 5.
 */
#include <stdio.h>

#define LEAF(n) \
	__attribute__((noinline)) unsigned leaf##n(unsigned x) \
	{ return x * 2654435761u + n; }
LEAF(0) LEAF(1) LEAF(2) LEAF(3) LEAF(4) LEAF(5) LEAF(6) LEAF(7)
LEAF(8) LEAF(9) LEAF(10) LEAF(11) LEAF(12) LEAF(13) LEAF(14) LEAF(15)

static unsigned (*const leaves[16])(unsigned) = {
	leaf0, leaf1, leaf2, leaf3, leaf4, leaf5, leaf6, leaf7,
	leaf8, leaf9, leaf10, leaf11, leaf12, leaf13, leaf14, leaf15,
};

/* One call site that calls all 16 leaves. */
#define C1 for (k = 0; k < 16; k++) s = leaves[k](s) ^ (s >> 3);
#define C4 C1 C1 C1 C1
#define C16 C4 C4 C4 C4
#define C64 C16 C16 C16 C16

__attribute__((noinline)) unsigned many(unsigned s)
{
	int k;

	C64 C64 C64 C64
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
