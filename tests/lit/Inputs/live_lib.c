/* live_lib.c - a shared library's hot function for live_threads.c. */
__attribute__((noinline)) unsigned long lib_twice(unsigned long i)
{
	return 2 * i;
}
