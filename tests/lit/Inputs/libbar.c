/* libbar.c - an instrumented shared library loaded with dlopen. */
volatile int bar_sink;

static __attribute__((noinline)) int bar_helper(int x) { return x * x * x; }

int bar_cube(int x)
{
	bar_sink++;
	return bar_helper(x);
}
