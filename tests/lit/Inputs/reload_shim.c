/*
 * reload_shim.c - LD_PRELOADed into reload_race: a dlclose between the
 * runtime's (which the program exports, first in the lookup order) and
 * the loader's.  Once the loader's has returned, the object unmapped,
 * it calls the program's reload_after_unmap() before returning: what
 * another thread does in that moment is what the test looks at.
 */
#define _GNU_SOURCE
#include <dlfcn.h>

int dlclose(void *handle)
{
	static int (*real)(void *);
	void (*hook)(void);
	int ret;

	if (!real)
		real = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	ret = real(handle);
	hook = (void (*)(void))dlsym(RTLD_DEFAULT, "reload_after_unmap");
	if (hook)
		hook();
	return ret;
}
