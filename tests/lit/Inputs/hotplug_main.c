/* hotplug_main.c PLUGIN N - dlopens PLUGIN and prints plug_fib(N). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long (*fib)(int);
	void *h;

	if (argc < 3)
		return 2;
	h = dlopen(argv[1], RTLD_NOW);
	fib = h ? (long (*)(int))dlsym(h, "plug_fib") : NULL;
	if (!fib) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	printf("%ld\n", fib(atoi(argv[2])));
	return 0;
}
