/*
 * dlclose.c - dlclose, as the executable exports it: tells the hooks that
 * an object may have been unloaded, before another can be loaded where it
 * was.
 *
 * __fentry__'s fast path (fentry.S) is keyed on raw return addresses.  A
 * library dlclosed and another mapped at the very same address, then
 * called from the same call sites, would find the first library's entries
 * and count into its edges.  The enter hook learns of every new object
 * from its IFUNC resolver, which the loader runs when it binds the object
 * to the hook; __fentry__ cannot be an IFUNC (hooks.c, fentry.S), so the
 * loader tells it nothing.  This dlclose is where it learns instead: the
 * executable exports it (vigil-entry.pc: -udlclose and
 * --export-dynamic-symbol=dlclose), so the program's own calls and every
 * shared library's (libltdl, GModule, Lua's loadlib in liblua.so) come
 * here before the loader's.
 *
 * From the moment it is called until the loader's dlclose has returned,
 * both hooks go through their check stubs (unload.c), so that another
 * thread that dlopens a library into the place just freed and calls it,
 * even from its constructors, before this dlclose returns, has those
 * calls counted as that library's.  The price is paid while dlclose runs
 * (the library's destructors included): every call, of every thread,
 * looks at the loader first.  A dlclose that unloads nothing (the object
 * was opened more than once) costs that and nothing more.  The
 * executable's own calls never take the check stubs (fentry.S: the callee
 * is in the executable, which is never unloaded, but the call site may be
 * in the unloaded object): so this dlclose drops the unloaded object's
 * edges from every table itself before it returns.  What is left is a
 * call into the executable made by another thread from an uninstrumented
 * library mapped into the freed place, at a call site the unloaded one
 * had, between the loader's unmap and that drop (docs/entry-mode-runtime.md).
 *
 * A file of its own, apart from unload.c (which the hooks use): a program
 * that neither calls dlclose nor asks for it (-udlclose, which
 * vigil-entry.specs leaves out of a -static link) links neither this nor
 * dlsym.  What it adds to a dlclose is atomic stores around the loader's,
 * then the check that the next call through a check stub would have made
 * anyway (hook_check_unloads: signals blocked, the loader asked before
 * the runtime's lock is taken), in the same thread and context.  The
 * loader's dlclose is found at the first call, with dlsym(RTLD_NEXT)
 * (libc's own since glibc 2.34: no libdl for a program that had none).  A
 * static binary has no RTLD_NEXT; there, libc.a's member that defines
 * dlclose defines __dlclose too, which this one calls instead.
 */
#include <dlfcn.h>
#include <errno.h>

#include "hooks.h"
#include "state.h"
#include "unload.h"

/* libc.a's name of its dlclose (glibc 2.34 on); not in libc.so, where
 * this weak reference stays NULL. */
extern int __dlclose(void *handle) __attribute__((weak));

typedef int close_fn(void *);

static close_fn *real_close;

static close_fn *RT find_real(void)
{
	close_fn *f = __atomic_load_n(&real_close, __ATOMIC_ACQUIRE);

	if (f)
		return f;
	if (__dlclose)
		f = __dlclose;
	else
		f = (close_fn *)dlsym(RTLD_NEXT, "dlclose");
	if (f)
		__atomic_store_n(&real_close, f, __ATOMIC_RELEASE);
	return f;
}

/*
 * The program's dlclose.  Returns what the loader's returns; errno and
 * dlerror() are the loader's too.  Without the loader's (not expected:
 * every glibc has one or the other), fails as dlclose fails on a bad
 * handle, leaving the object loaded.
 */
__attribute__((visibility("default"))) int RT dlclose(void *handle)
{
	close_fn *real = find_real();
	int ret, saved;

	if (!real) {
		errno = EINVAL;
		return -1;
	}
	unload_begin();
	hook_loader_changed();
	ret = real(handle);
	saved = errno;
	/* After the unmap: a check that looked at the loader before it must
	 * not be the last one. */
	hook_loader_changed();
	unload_end();
	/* The program's own calls skip the check stubs (fentry.S): drop
	 * what the unloaded object left from every table before returning,
	 * rather than at the next call through them. */
	hook_check_unloads();
	errno = saved;
	return ret;
}
