/*
 * Benchmark workload 1: naive recursive Fibonacci.
 *
 * Nothing but calls: every call does one compare and one add, so this is the
 * worst case for any per-call hook.  The asm barrier keeps GCC from turning
 * the second recursive call into a loop (tail recursion with an accumulator),
 * which it would do in the plain build but not in the instrumented one, and
 * the two builds would then make different numbers of calls.
 *
 * usage: fib [N]        (default 35)
 * stdout: the checksum; stderr: "calls=C", the number of calls to fib().
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static long fib(int n)
{
	if (n < 2)
		return n;
	long r = fib(n - 1) + fib(n - 2);
	__asm__ volatile("" : "+r"(r));
	return r;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 35;
	/* calls(n) = 1 + calls(n-1) + calls(n-2), calls(0) = calls(1) = 1 */
	unsigned long long c0 = 1, c1 = 1;
	for (int i = 2; i <= n; i++) {
		unsigned long long c2 = 1 + c1 + c0;
		c0 = c1;
		c1 = c2;
	}
	printf("fib(%d) = %ld\n", n, fib(n));
	fprintf(stderr, "calls=%llu\n", n < 1 ? 1ULL : c1);
	return 0;
}
