/*
 * reload_main.c - dlopens argv[1], calls its alpha_entry 3 times,
 * dlcloses it, dlopens argv[2] and calls its beta_entry 5 times.  The
 * calls go through one call instruction (call_it), so when the second
 * plugin lands where the first was, every call edge of the second has the
 * addresses of one of the first: only the objects tell them apart.  argv[3]
 * is "lazy" or "now", the dlopen mode.  Prints whether the two loads
 * shared a base address, so a test can see that it tested that case.
 */
#define _GNU_SOURCE /* dlinfo */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

typedef int (*entry_fn)(int);

static __attribute__((noinline)) int call_it(entry_fn f, int x)
{
	return f(x);
}

static void *load(const char *path, int mode, uintptr_t *base)
{
	struct link_map *lm = NULL;
	void *h = dlopen(path, mode);

	if (!h || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		return NULL;
	}
	*base = lm->l_addr;
	return h;
}

int main(int argc, char **argv)
{
	uintptr_t base_a, base_b;
	entry_fn f;
	void *h;
	long sum = 0;
	int i, mode;

	if (argc != 4)
		return 2;
	mode = !strcmp(argv[3], "now") ? RTLD_NOW : RTLD_LAZY;
	if (!(h = load(argv[1], mode, &base_a)) ||
	    !(f = (entry_fn)dlsym(h, "alpha_entry")))
		return 1;
	for (i = 0; i < 3; i++)
		sum += call_it(f, i);
	dlclose(h);
	if (!(h = load(argv[2], mode, &base_b)) ||
	    !(f = (entry_fn)dlsym(h, "beta_entry")))
		return 1;
	for (i = 0; i < 5; i++)
		sum += call_it(f, i);
	printf("same base: %s\n", base_a == base_b ? "yes" : "no");
	printf("sum %ld\n", sum);
	return 0;
}
