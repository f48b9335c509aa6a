/*
 * reload_callback.c - dlopens argv[1] and calls its alpha_call 3 times,
 * dlcloses it, dlopens argv[2] and calls its beta_call 5 times: each
 * calls the program's exe_cb (reload_cb.S).  When the second plugin lands
 * where the first was, its calls of exe_cb come from the first's call
 * site, and only the objects tell them apart.  Prints whether the two
 * loads shared a base address, and the sum of the results.
 */
#define _GNU_SOURCE /* dlinfo */
#include "reload_load.h"

/* Read at run time: one loop of the loads, not a copy per plugin. */
static volatile int nplugins = 2;

__attribute__((noinline, visibility("default"))) int exe_cb(int x)
{
	return x + 1;
}

int main(int argc, char **argv)
{
	static const char *const names[2] = { "alpha_call", "beta_call" };
	static const int calls[2] = { 3, 5 };
	uintptr_t base[2];
	entry_fn f;
	void *h;
	long sum = 0;
	int i, k;

	if (argc != 3)
		return 2;
	for (k = 0; k < nplugins; k++) {
		if (!(h = load(argv[1 + k], RTLD_NOW, &base[k])) ||
		    !(f = (entry_fn)dlsym(h, names[k])))
			return 1;
		for (i = 0; i < calls[k]; i++)
			sum += f(i);
		if (k < nplugins - 1 && dlclose(h))
			return 1;
	}
	printf("same base: %s\n", base[0] == base[1] ? "yes" : "no");
	printf("sum %ld\n", sum);
	return 0;
}
