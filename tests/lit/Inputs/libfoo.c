/* libfoo.c - an instrumented shared library linked at build time. */
volatile int foo_sink;

static __attribute__((noinline)) int foo_helper(int x) { return x * x; }

int foo_square(int x)
{
	foo_sink++;
	return foo_helper(x);
}
