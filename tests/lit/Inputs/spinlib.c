/* spinlib.c - a shared library whose one function spins (both-shlib.test). */
volatile unsigned long spin_sink;

__attribute__((noinline)) unsigned long spin(unsigned long n)
{
	unsigned long i, x = spin_sink;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	spin_sink = x;
	return x;
}
