/*
 * fentry.c - workloads of the entry hook's own tests (tests/lit/entry/),
 * built with -pg -mfentry (VIGIL_MODE=entry tests/e2e/vcc).
 *
 * usage: fentry inline | vararg | m256
 *
 * main is not instrumented, so the function each mode calls first is the
 * process's first call of the hook: its slow path starts the runtime
 * (environment, paths, the file: libc's AVX string functions), with every
 * argument register of that function live.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#ifdef __AVX2__
#include <immintrin.h>
#endif

/* Inlined into its one caller: no call of it is ever made. */
static inline __attribute__((always_inline)) int helper(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++) {
		s += helper(i);
		__asm__ volatile("" : "+r"(s));
	}
	return s;
}

/* Six integer registers, eight vector registers and %al (8) live. */
__attribute__((noinline)) double vmix(int n, long b, long c, long d, long e,
				      long f, ...)
{
	va_list ap;
	double s = (double)(b + c + d + e + f);

	va_start(ap, f);
	for (int i = 0; i < n; i++)
		s = s * 10 + va_arg(ap, double);
	va_end(ap);
	return s;
}

#ifdef __AVX2__
/* Eight ymm registers live, their upper halves included. */
__attribute__((noinline)) double m256(__m256d a, __m256d b, __m256d c,
				      __m256d d, __m256d e, __m256d f,
				      __m256d g, __m256d h)
{
	double out[4], s = 0;
	__m256d v[8] = { a, b, c, d, e, f, g, h };

	for (int i = 0; i < 8; i++) {
		_mm256_storeu_pd(out, v[i]);
		for (int k = 0; k < 4; k++)
			s = s * 2 + out[k];
	}
	return s;
}
#endif

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "inline")) {
		printf("work %d\n", work(100));
	} else if (!strcmp(mode, "vararg")) {
		printf("vmix %.17g\n", vmix(8, 1, 2, 3, 4, 5, 0.5, 1.25, 2.0,
					    3.5, 4.0, 5.75, 6.0, 7.125));
#ifdef __AVX2__
	} else if (!strcmp(mode, "m256")) {
		__m256d x[8];

		for (int i = 0; i < 8; i++)
			x[i] = _mm256_set_pd(4 * i + 4, 4 * i + 3, 4 * i + 2,
					     4 * i + 1);
		printf("m256 %.17g\n",
		       m256(x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]));
#endif
	} else {
		fprintf(stderr, "usage: fentry inline|vararg|m256\n");
		return 2;
	}
	return 0;
}
