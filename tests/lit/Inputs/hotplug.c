/* hotplug.c - a plugin with one hot function: plug_fib(n) makes
 * fib-many calls of itself (hotplug_main.c dlopens it). */
__attribute__((noinline)) long plug_fib(int n)
{
	long r;

	if (n < 2)
		return n;
	r = plug_fib(n - 1) + plug_fib(n - 2);
	__asm__ volatile("" : "+r"(r));   /* no accumulator loop */
	return r;
}
