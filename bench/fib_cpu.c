/*
 * fib_cpu.c - fib.c's workload timed by itself, for bench/entry_builds.py's
 * live part (issue 29, point 5): the process's CPU time (user and system:
 * a uprobe's trap is the process's system time) of fib(N) alone, so that
 * a tracer's start-up (bpftrace's) is not in it.
 * usage: fib_cpu N; stdout: "fib(N) = F cpu_ns T".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) long fib(int n)
{
	if (n < 2)
		return n;
	long r = fib(n - 1) + fib(n - 2);
	__asm__ volatile("" : "+r"(r));
	return r;
}

static long long cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 25;
	long long t0 = cpu_ns();
	long f = fib(n);
	long long t1 = cpu_ns();

	printf("fib(%d) = %ld cpu_ns %lld\n", n, f, t1 - t0);
	return 0;
}
