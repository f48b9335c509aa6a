/*
 * attach_reload.c - an instrumented target for `vigil attach --scan
 * counts` on a plugin reloaded at the same address: prints "ready", waits
 * for a line on stdin, dlopens argv[1] and calls its alpha_entry 300
 * times, dlcloses it, dlopens argv[2] and calls its beta_entry 300 times,
 * 2 ms apart (about 0.6 s, so scans every few ms see both plugins' edges,
 * same addresses and different modules, in the live profile), then
 * prints whether the two loads shared a base.  The plugins are
 * reload_plugin.c built twice.
 */
#define _GNU_SOURCE /* dlinfo */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <time.h>

typedef int (*entry_fn)(int);

static __attribute__((noinline)) int call_it(entry_fn f, int x)
{
	return f(x);
}

static int run(const char *path, const char *sym, int keep, uintptr_t *base)
{
	struct timespec d = { 0, 2000000 };
	struct link_map *lm = NULL;
	void *h = dlopen(path, RTLD_NOW);
	entry_fn f;
	int i;

	if (!h || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 ||
	    !(f = (entry_fn)dlsym(h, sym))) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		return 1;
	}
	*base = lm->l_addr;
	for (i = 0; i < 300; i++) {
		call_it(f, i);
		nanosleep(&d, NULL);
	}
	if (!keep)
		dlclose(h);
	return 0;
}

int main(int argc, char **argv)
{
	uintptr_t base_a, base_b;
	char line[16];

	if (argc != 3)
		return 2;
	puts("ready");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	if (run(argv[1], "alpha_entry", 0, &base_a) ||
	    run(argv[2], "beta_entry", 1, &base_b))
		return 1;
	printf("same base: %s\n", base_a == base_b ? "yes" : "no");
	return 0;
}
