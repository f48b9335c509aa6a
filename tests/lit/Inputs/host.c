/* host.c - an uninstrumented host: dlopens PLUGIN (with RTLD_DEEPBIND,
 * so the plugin's hooks bind to its own runtime rather than to glibc's
 * no-op ones), calls it 3 times, dlcloses it, then exits normally. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *h;
	int (*plug)(int), i, s = 0;

	if (argc < 2 || !(h = dlopen(argv[1], RTLD_NOW | RTLD_DEEPBIND))) {
		printf("dlopen: %s\n", dlerror());
		return 1;
	}
	plug = (int (*)(int))dlsym(h, "plug");
	for (i = 0; i < 3; i++)
		s += plug(i);
	dlclose(h);
	printf("host %d\n", s);
	return 0;
}
