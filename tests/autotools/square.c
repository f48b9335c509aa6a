/*
 * square.c - libsquare, the autotools test project's shared library:
 * square() calls twice() once, so the library has a call edge of its own.
 */
volatile int lib_sink;

__attribute__((noinline)) int twice(int x) { lib_sink++; return x + x; }

int square(int x)
{
	return twice(x * x) / 2;
}
