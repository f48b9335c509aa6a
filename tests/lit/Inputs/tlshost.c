/* tlshost.c - an uninstrumented host: dlopens PLUGIN (linked with
 * libvigil.so, RTLD_DEEPBIND), calls it, then dlopens HOG, a library
 * with initial-exec TLS, which needs what is left of static TLS. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *p, *h;
	int (*plug)(int), (*hog)(int);

	if (argc < 3 || !(p = dlopen(argv[1], RTLD_NOW | RTLD_DEEPBIND))) {
		printf("dlopen plugin: %s\n", dlerror());
		return 1;
	}
	plug = (int (*)(int))dlsym(p, "plug");
	plug(1);
	if (!(h = dlopen(argv[2], RTLD_NOW))) {
		printf("dlopen hog: %s\n", dlerror());
		return 1;
	}
	hog = (int (*)(int))dlsym(h, "tlshog");
	printf("hog %d\n", hog(5));
	return 0;
}
