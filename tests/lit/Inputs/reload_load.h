/*
 * reload_load.h - what reload_main.c and reload_race.c share: a plugin's
 * entry called through one call instruction (call_it), and a dlopen that
 * also gives the object's base address (load), so that a test sees
 * whether the second plugin landed where the first was.
 */
#ifndef RELOAD_LOAD_H
#define RELOAD_LOAD_H

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>

typedef int (*entry_fn)(int);

static __attribute__((noinline)) int call_it(entry_fn f, int x)
{
	return f(x);
}

/* dlopen(path, mode), *base its load address; NULL (and a line) if not. */
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

#endif
