/*
 * ipara.c - values a caller keeps in registers across calls of functions
 * it can see.  GCC's -fipa-ra (on at -O2) keeps them in call-clobbered
 * registers a known callee does not touch (here r10, r11 and xmm8-9, see
 * ipa-ra.test); __fentry__'s fast path writes r10 and r11 (fentry.S), so
 * the entry mode is only right while GCC turns -fipa-ra off under -p, as
 * GCC 12 does.  Every edge is called many times: most calls take the fast
 * path.
 */
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) double f(double x) { return x + 1.0; }
static __attribute__((noinline)) long g(long x) { return x + 1; }

static __attribute__((noinline)) double h(const double *a, const long *b)
{
	double s0 = a[0], s1 = a[1], s2 = a[2], s3 = a[3], s4 = a[4];
	double s5 = a[5], s6 = a[6], s7 = a[7], s8 = a[8], s9 = a[9];
	long t0 = b[0], t1 = b[1], t2 = b[2], t3 = b[3], t4 = b[4];
	long t5 = b[5], t6 = b[6], t7 = b[7], t8 = b[8];
	double r = f(s0);
	long q = g(t0);

	return r * s1 * s2 * s3 * s4 * s5 * s6 * s7 * s8 * s9 +
	       (double)(q * t1 * t2 * t3 * t4 * t5 * t6 * t7 * t8);
}

int main(int argc, char **argv)
{
	double a[10], sum = 0;
	long b[9];
	int i, n = argc > 1 ? atoi(argv[1]) : 1000;

	for (i = 0; i < 10; i++)
		a[i] = 1.0 + i / 8.0;
	for (i = 0; i < 9; i++)
		b[i] = 2 + i;
	for (i = 0; i < n; i++) {
		a[0] = i;
		sum += h(a, b);
	}
	printf("sum %.3f\n", sum);
	return 0;
}
