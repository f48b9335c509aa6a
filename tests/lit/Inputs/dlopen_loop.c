/*
 * dlopen_loop.c - a program that loads and unloads code while it is
 * sampled: for argv[1] milliseconds of wall time, dlopen("libm.so.6"),
 * call its cos, dlclose, spin a little; then exits 0.  Each round maps
 * new code (an mmap record among the stack samples) for the sampler to
 * read again, and removes it.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 500) / 1000;
	volatile double sink = 0;
	unsigned long i;

	while (now() < end) {
		void *h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
		double (*c)(double) = h ? (double (*)(double))dlsym(h, "cos") : 0;

		if (c)
			sink += c(sink);
		if (h)
			dlclose(h);
		for (i = 0; i < 100000; i++)
			sink += (double)i;
	}
	return 0;
}
