/*
 * spinhook.c - spin() for spinmain.c as many small calls (hook-share.test):
 * each call of step() is a known edge, counted by the hook's fast path.
 */
volatile unsigned long spin_sink;

__attribute__((noinline)) unsigned long step(unsigned long x)
{
	return x * 6364136223846793005ul + 1442695040888963407ul;
}

unsigned long spin(unsigned long n)
{
	unsigned long i, x = spin_sink;

	for (i = 0; i < n / 8; i++)
		x = step(x);
	spin_sink = x;
	return x;
}
