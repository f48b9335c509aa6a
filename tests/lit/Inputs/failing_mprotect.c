/* failing_mprotect.c - an LD_PRELOAD library whose mprotect refuses to
 * make memory writable and executable at once (EACCES), as a W^X policy
 * (SELinux's execmod, PaX's MPROTECT) does; every other request is
 * libc's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sys/mman.h>

int mprotect(void *addr, size_t len, int prot)
{
	static int (*real)(void *, size_t, int);

	if ((prot & PROT_WRITE) && (prot & PROT_EXEC)) {
		errno = EACCES;
		return -1;
	}
	if (!real)
		real = (int (*)(void *, size_t, int))dlsym(RTLD_NEXT, "mprotect");
	return real(addr, len, prot);
}
