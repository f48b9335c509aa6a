/*
 * manyplugins.c - a host of plugins.
 *
 *   manyplugins N cycle SO1 SYM1 SO2 SYM2   N times: dlopen the next of
 *       the two plugins (taking turns), call its SYM once, dlclose it;
 *   manyplugins N hold SO SYM               dlopen SO.0 ... SO.(N-1),
 *       copies of one plugin under N names, call SYM of each once, and
 *       keep them all loaded.
 *
 * Every call goes through one call instruction (call_it).  Prints "sum S",
 * the sum of what the calls returned.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*entry_fn)(int);

static __attribute__((noinline)) int call_it(entry_fn f, int x)
{
	return f(x);
}

int main(int argc, char **argv)
{
	int n, hold, i;
	long sum = 0;
	char path[4096];

	if (argc < 5)
		return 2;
	n = atoi(argv[1]);
	hold = !strcmp(argv[2], "hold");
	if (!hold && argc < 7)
		return 2;
	for (i = 0; i < n; i++) {
		const char *so = hold || i % 2 == 0 ? argv[3] : argv[5];
		const char *sym = hold || i % 2 == 0 ? argv[4] : argv[6];
		void *h;
		entry_fn f;

		if (hold)
			snprintf(path, sizeof(path), "%s.%d", so, i);
		else
			snprintf(path, sizeof(path), "%s", so);
		h = dlopen(path, RTLD_NOW);
		if (!h || !(f = (entry_fn)dlsym(h, sym))) {
			fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
			return 1;
		}
		sum += call_it(f, i);
		if (!hold)
			dlclose(h);
	}
	printf("sum %ld\n", sum);
	return 0;
}
