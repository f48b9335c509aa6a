/*
 * util.c - the half of check-partial.test's program built without vigil's
 * flags: its three functions carry no counting site.
 */
static __attribute__((noinline)) int helper_c(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3;
}

__attribute__((noinline)) int helper_a(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

__attribute__((noinline)) int helper_b(int x)
{
	return helper_c(x) - 1;
}
