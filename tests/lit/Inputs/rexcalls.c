/*
 * rexcalls.c - calls through function pointers held in structures, five
 * at a time in one loop: with -O2 GCC keeps the structures in r12-r15 and
 * rbx and calls `call *0x8(%r13)`, whose REX prefix (0x41) makes the call
 * one byte longer than the same call through rbx.  A decoder that looks
 * back from the return address finds the shorter call inside it first.
 */
#include <stdio.h>

struct ops {
	const char *name;
	int (*f)(int);
};

static __attribute__((noinline)) int inc(int x) { return x + 1; }
static __attribute__((noinline)) int dbl(int x) { return x * 2; }
static __attribute__((noinline)) int neg(int x) { return -x; }
static __attribute__((noinline)) int sq(int x) { return x * x; }
static __attribute__((noinline)) int half(int x) { return x / 2; }

static struct ops ops[5] = {
	{ "inc", inc }, { "dbl", dbl }, { "neg", neg }, { "sq", sq },
	{ "half", half },
};

__attribute__((noinline)) long run(struct ops *a, struct ops *b,
				   struct ops *c, struct ops *d,
				   struct ops *e, int n)
{
	long sum = 0;
	int i;

	for (i = 0; i < n; i++)
		sum += a->f(i) + b->f(i) + c->f(i) + d->f(i) + e->f(i);
	return sum;
}

int main(void)
{
	printf("sum %ld\n", run(&ops[0], &ops[1], &ops[2], &ops[3], &ops[4],
				7));
	return 0;
}
