/*
 * shlib_main.c - calls foo_square (libfoo.so, linked) 3 times and
 * bar_cube (libbar.so, dlopened from argv[1]) 4 times.  With a second
 * argument "reload", then dlcloses libbar, dlopens it again (possibly at
 * another address) and calls bar_cube 4 more times.
 */
#include <string.h>
#include <dlfcn.h>
#include <stdio.h>

int foo_square(int x);

int main(int argc, char **argv)
{
	int (*cube)(int);
	void *h;
	long sum = 0;
	int i;

	if (argc < 2)
		return 2;
	for (i = 0; i < 3; i++)
		sum += foo_square(i);
	h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	cube = (int (*)(int))dlsym(h, "bar_cube");
	if (!cube)
		return 1;
	for (i = 0; i < 4; i++)
		sum += cube(i);
	if (argc > 2 && !strcmp(argv[2], "reload")) {
		dlclose(h);
		h = dlopen(argv[1], RTLD_NOW);
		cube = h ? (int (*)(int))dlsym(h, "bar_cube") : NULL;
		if (!cube)
			return 1;
		for (i = 0; i < 4; i++)
			sum += cube(i);
	}
	printf("sum %ld\n", sum);
	return 0;
}
