/*
 * Benchmark workload 2: many small functions called through a pointer table.
 *
 * Sixteen tiny functions, each a different one-line mix, picked by the top
 * bits of a linear congruential generator.  The hook sees 16 callees and one
 * indirect call site, which exercises the edge lookup more than fib does,
 * and the indirect branch defeats inlining in every build.
 *
 * usage: table [ITERS]   (default 40000000)
 * stdout: the checksum; stderr: "calls=C", calls to the small functions.
 */
#include <stdio.h>
#include <stdlib.h>

typedef unsigned long (*fn)(unsigned long);

#define F(i, expr) \
	__attribute__((noinline)) static unsigned long f##i(unsigned long x) \
	{ return expr; }

F(0, x + 1)
F(1, x ^ 0x9e3779b97f4a7c15UL)
F(2, x * 3)
F(3, x - 7)
F(4, (x << 1) | (x >> 63))
F(5, x + (x >> 7))
F(6, x ^ (x >> 13))
F(7, x * 0x100000001b3UL)
F(8, x + 0x1234567)
F(9, ~x)
F(10, x ^ (x << 5))
F(11, x - (x >> 3))
F(12, (x >> 1) | (x << 63))
F(13, x * 5 + 1)
F(14, x ^ 0xdeadbeefUL)
F(15, x + (x << 2))

static fn table[16] = {
	f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15,
};

int main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 0) : 40000000UL;
	unsigned long x = 1, lcg = 12345;

	for (unsigned long i = 0; i < iters; i++) {
		lcg = lcg * 6364136223846793005UL + 1442695040888963407UL;
		x = table[lcg >> 60](x);
	}
	printf("table checksum = %lu\n", x);
	fprintf(stderr, "calls=%lu\n", iters);
	return 0;
}
