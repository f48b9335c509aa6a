/*
 * reload_main.c - dlopens argv[1], calls its alpha_entry 3 times,
 * dlcloses it, dlopens argv[2] and calls its beta_entry 5 times.  The
 * calls go through one call instruction (call_it), and both plugins are
 * loaded by one call of load() in a loop, so when the second plugin lands
 * where the first was, its first calls take no edge the first did not:
 * every call edge of the second has the addresses of one of the first,
 * and only the objects tell them apart.  argv[3] is "lazy" or "now", the
 * dlopen mode.  argv[4], if given, says who dlcloses the first plugin:
 * "main" (the default), "thread" (another thread, joined), "signal" (a
 * SIGUSR1 handler, raised), or "twice": the first plugin is opened twice,
 * so that its first dlclose unloads nothing and 3 more calls count as its
 * own, before the second dlclose unloads it.  Prints whether the two
 * loads shared a base address, so a test can see that it tested that case.
 */
#define _GNU_SOURCE /* dlinfo */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "reload_load.h"

static void *to_close;
/* Read at run time, so that the compiler makes one loop of the loads, not
 * one copy of its body (and of each call site in it) per plugin. */
static volatile int nplugins = 2;

static void *closer(void *arg)
{
	dlclose(arg);
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
	dlclose(to_close);
}

static int unload(void *h, const char *how)
{
	pthread_t t;

	if (!strcmp(how, "thread"))
		return pthread_create(&t, NULL, closer, h) ||
		       pthread_join(t, NULL);
	if (!strcmp(how, "signal")) {
		to_close = h;
		signal(SIGUSR1, on_usr1);
		return raise(SIGUSR1);
	}
	return dlclose(h);
}

int main(int argc, char **argv)
{
	static const char *const names[2] = { "alpha_entry", "beta_entry" };
	static const int calls[2] = { 3, 5 };
	const char *how = argc > 4 ? argv[4] : "main";
	uintptr_t base[2];
	entry_fn f;
	void *h, *again = NULL;
	long sum = 0;
	int i, k, mode;

	if (argc != 4 && argc != 5)
		return 2;
	mode = !strcmp(argv[3], "now") ? RTLD_NOW : RTLD_LAZY;
	for (k = 0; k < nplugins; k++) {
		if (!(h = load(argv[1 + k], mode, &base[k])) ||
		    !(f = (entry_fn)dlsym(h, names[k])))
			return 1;
		if (k == 0 && !strcmp(how, "twice") &&
		    !(again = dlopen(argv[1], mode)))
			return 1;
		for (i = 0; i < calls[k]; i++)
			sum += call_it(f, i);
		if (k == nplugins - 1)
			break;
		if (again) {
			if (dlclose(again))
				return 1;
			for (i = 0; i < calls[k]; i++)
				sum += call_it(f, i);
		}
		if (unload(h, how))
			return 1;
	}
	printf("same base: %s\n", base[0] == base[1] ? "yes" : "no");
	printf("sum %ld\n", sum);
	return 0;
}
