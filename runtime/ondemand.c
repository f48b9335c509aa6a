/*
 * ondemand.c - the idle counting sites of the ondemand build mode
 * (vigil-ondemand.pc, docs/ondemand.md).
 *
 * A program built ondemand calls __fentry__ first in every function, as
 * the entry mode's does, and GCC lists each of those calls in the
 * object's __mcount_loc section (-mrecord-mcount).  Before main, when
 * counting is not asked for (no VIGIL_FILE, as `vigil run` sets it), the
 * calls of every module loaded then are rewritten into nops of the same
 * length: the program then runs at about its plain speed.  When counting
 * is asked for, nothing here happens and the program counts exactly as
 * the entry mode does.
 *
 * Tuned for one pass at start, in the process's only thread: the
 * executable's .preinit_array runs before any library's constructor, so
 * no other thread can be executing the bytes rewritten.  Each module's
 * __mcount_loc is found from its section headers on disk (a few preads),
 * and read in memory, where the loader has relocated it:
 * vigil-mcount-rw.o, linked into every ondemand link, makes the section
 * writable, so that its relocations are the data segment's and the link
 * has no DT_TEXTREL.  A
 * site is rewritten only when its bytes are one of the calls GCC and the
 * linker make (`e8`, `67 e8`, `ff 15`, each with rel32); the code
 * segment is made writable (and kept executable: the runtime's own code
 * may be in it) for the rewrite alone, with one mprotect, and given back
 * the protection its program header says.
 * Where mprotect is refused (a W^X policy), one line names the module and
 * its sites stay calls, which count into memory only: the runtime writes no
 * profile in an idle process (init.c, ondemand_idle).
 *
 * An object dlopened later is made idle by its own first constructor
 * (vgl_ondemand_module, below), before dlopen returns.  Rewriting code
 * that other threads may be running (the live switch) is not done here
 * (docs/ondemand.md).
 *
 * Only in libvigil.a: the link of an ondemand executable pulls this file
 * in (-uvgl_ondemand_start in vigil-ondemand.specs).  libvigil.so leaves
 * it out, and a process whose runtime is libvigil.so counts as the entry
 * mode's.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "module.h"
#include "ondemand.h"
#include "ondemand_ctl.h"
#include "state.h"
#include "text.h"

#ifndef VGL_RT_SHARED

#define PAGE 4096UL

/* The hooks (fentry.S): the executable's calls go to the first, its
 * libraries' through their GOT or slot to the second. */
void __wrap___fentry__(void);
void __fentry__(void);

/* -1 not yet known, 0 counting (VIGIL_FILE set), 1 idle. */
static int idle = -1;

static int RT idle_from(char **envp)
{
	char **e;

	/* Secure-execution mode honours no VIGIL_* setting (init.c). */
	if (getauxval(AT_SECURE) || !envp)
		return 1;
	for (e = envp; *e; e++)
		if (!strncmp(*e, "VIGIL_FILE=", 11))
			return (*e)[11] == 0;
	return 1;
}

/* Whether counting is off in this process; init.c asks at its set-up,
 * which then counts into memory and writes no profile. */
int RT ondemand_idle(void)
{
	extern char **environ;

	/* Not known before libc has its environment (an IFUNC resolver's
	 * call, during relocation): idle until then, decided later. */
	if (idle < 0 && environ)
		idle = idle_from(environ);
	return idle != 0;
}

static int RT prot_of(uint32_t flags)
{
	return (flags & PF_R ? PROT_READ : 0) | (flags & PF_W ? PROT_WRITE : 0) |
	       (flags & PF_X ? PROT_EXEC : 0);
}

/* Whether load segment ph of info holds [a, a + n) and has all of flags. */
static int RT in_segment(const struct dl_phdr_info *info,
			 const ElfW(Phdr) *ph, uintptr_t a, size_t n,
			 uint32_t flags)
{
	uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

	return ph->p_type == PT_LOAD && (ph->p_flags & flags) == flags &&
	       a >= lo && a - lo <= ph->p_memsz && n <= ph->p_memsz - (a - lo);
}

/* The load segment of info holding [a, a + n) whose p_flags have all of
 * flags, or NULL. */
static const ElfW(Phdr) *RT segment_of(const struct dl_phdr_info *info,
				       uintptr_t a, size_t n, uint32_t flags)
{
	int i;

	for (i = 0; i < info->dlpi_phnum; i++)
		if (in_segment(info, &info->dlpi_phdr[i], a, n, flags))
			return &info->dlpi_phdr[i];
	return NULL;
}

/* The two lists of sites: GCC's -mrecord-mcount and Clang's
 * -fpatchable-function-entry (docs/ondemand.md, "Clang"). */
static const char gcc_sites[] = "__mcount_loc";
static const char clang_sites[] = "__patchable_function_entries";

/* Whether the section name at off of the names section nm (its first
 * bytes in buf, len of them) is want. */
static int RT is_sites(int fd, const ElfW(Shdr) *nm, const char *buf,
		       size_t len, uint32_t off, const char *want)
{
	size_t wl = strlen(want) + 1;
	char name[sizeof(clang_sites)];

	if (off >= nm->sh_size || nm->sh_size - off < wl)
		return 0;
	if (off + wl <= len)
		return !memcmp(buf + off, want, wl);
	return pread(fd, name, wl, nm->sh_offset + off) == (ssize_t)wl &&
	       !memcmp(name, want, wl);
}

/*
 * The ELF addresses and sizes of path's lists of sites, GCC's (addr[0],
 * size[0]) and Clang's (addr[1], size[1]), from its section headers (read
 * 32 at a time, and the first KiB of their names: a few preads for a whole
 * program); 0 when it has neither (built otherwise) or cannot be read.
 */
static int RT find_sites(const char *path, uint64_t addr[2], uint64_t size[2])
{
	ElfW(Shdr) sh[32], nm;
	char names[1024];
	ElfW(Ehdr) eh;
	ssize_t len;
	int fd, i, k, n, found = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(nm) || eh.e_shstrndx >= eh.e_shnum ||
	    pread(fd, &nm, sizeof(nm),
		  eh.e_shoff + (uint64_t)eh.e_shstrndx * sizeof(nm)) !=
		    sizeof(nm))
		goto out;
	len = pread(fd, names, sizeof(names), nm.sh_offset);
	if (len < 0)
		len = 0;
	size[0] = size[1] = 0;
	for (i = 0; i < eh.e_shnum && found < 2; i += n) {
		n = eh.e_shnum - i < 32 ? eh.e_shnum - i : 32;
		if (pread(fd, sh, n * sizeof(sh[0]),
			  eh.e_shoff + (uint64_t)i * sizeof(sh[0])) !=
		    (ssize_t)(n * sizeof(sh[0])))
			break;
		for (k = 0; k < n && found < 2; k++) {
			int which;

			if (sh[k].sh_type != SHT_PROGBITS ||
			    !(sh[k].sh_flags & SHF_ALLOC))
				continue;
			if (is_sites(fd, &nm, names, (size_t)len, sh[k].sh_name,
				     gcc_sites))
				which = 0;
			else if (is_sites(fd, &nm, names, (size_t)len,
					  sh[k].sh_name, clang_sites))
				which = 1;
			else
				continue;
			addr[which] = sh[k].sh_addr;
			size[which] = sh[k].sh_size;
			found++;
		}
	}
out:
	close(fd);
	return found;
}

/* The code segment made writable for the rewrite, to be given back. */
struct window {
	uintptr_t lo, hi;        /* [lo, hi), page-aligned; lo == hi: none */
	int prot;                /* what it was: its segment's rights */
};

static int RT window_close(struct window *w)
{
	int ret = 0;

	if (w->lo != w->hi)
		ret = mprotect((void *)w->lo, w->hi - w->lo, w->prot);
	w->lo = w->hi = 0;
	return ret;
}

/*
 * Makes the whole of segment ph of info writable (one mprotect; only the
 * pages written become the process's own), giving back the one before;
 * -errno if refused.  Kept executable: the code running this may be in
 * it.
 */
static int RT window_open(struct window *w, const struct dl_phdr_info *info,
			  const ElfW(Phdr) *ph)
{
	uintptr_t lo = (info->dlpi_addr + ph->p_vaddr) & ~(PAGE - 1);
	uintptr_t hi = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz +
			PAGE - 1) & ~(PAGE - 1);

	if (w->lo == lo && w->hi == hi)
		return 0;
	if (window_close(w) < 0)
		return -errno;
	if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC) < 0)
		return -errno;
	w->lo = lo;
	w->hi = hi;
	w->prot = prot_of(ph->p_flags);
	return 0;
}

/*
 * Where Clang's sites go (its -fpatchable-function-entry=6 leaves a 6-byte
 * nop, `66 0f 1f 44 00 xx`, and no call): in the executable, `addr32 call`
 * of the hook itself; in a shared library, `call *slot(%rip)` through the
 * library's own slot (vigil-mcount-rw.o's, holding __fentry__), as GCC's
 * shared libraries call through their GOT.  NULL for GCC's lists.
 */
struct clang_sites {
	uintptr_t target;        /* the hook (exe) or the slot (library) */
	int via_slot;
	int on;                  /* the call itself, not its idle twin */
};

/* Writes the 6 bytes of Clang's site p (a nop when given): the call, or
 * its idle twin.  0, or -1 when the target is out of a rel32's reach. */
static int RT clang_site(unsigned char *p, const struct clang_sites *c)
{
	intptr_t rel = (intptr_t)c->target - (intptr_t)(p + 6);
	int32_t r32 = (int32_t)rel;
	unsigned char b[6];

	if (rel != r32)
		return -1;
	b[0] = c->via_slot ? (c->on ? 0xff : 0x85) : 0x67;
	b[1] = c->via_slot ? 0x15 : (c->on ? 0xe8 : 0xa9);
	memcpy(b + 2, &r32, 4);
	memcpy(p, b, 6);
	return 0;
}

/* Whether p holds Clang's nop of a site not written yet. */
static int RT clang_nop(const unsigned char *p)
{
	return p[0] == 0x66 && p[1] == 0x0f && p[2] == 0x1f && p[3] == 0x44 &&
	       p[4] == 0x00;
}

/*
 * Makes the n sites listed at sites idle, in the module of info named
 * path: each site whose bytes are a call of __fentry__ becomes its idle
 * twin (lib/ondemand_ctl.h); with c, each of Clang's nops becomes the call
 * or its idle twin, as c says.  Says so in one line when the code cannot
 * be made writable.  Only where no other thread can be running the code:
 * before main, or an object being loaded (the live switch is the
 * outside's, one byte at a time: sampler/live.c).
 */
static void RT rewrite_sites(struct dl_phdr_info *info, const char *path,
			  const uint64_t *sites, uint64_t n,
			  const struct clang_sites *c)
{
	struct window w = { 0, 0, 0 };
	const ElfW(Phdr) *ph = NULL;
	const struct vgl_od_form *f = NULL;
	unsigned char *p;
	uint64_t i;
	int on, err = 0, far = 0;

	for (i = 0; i < n; i++) {
		p = (unsigned char *)sites[i];
		/* Sites come in address order, mostly in one segment. */
		if (!ph || !in_segment(info, ph, (uintptr_t)p, 6, PF_X))
			ph = segment_of(info, (uintptr_t)p, 6, PF_X);
		if (!ph || (c ? !clang_nop(p) :
			    !(f = vgl_od_form_of(p, &on)) || !on))
			continue;
		err = window_open(&w, info, ph);
		if (err < 0)
			break;
		if (!c)
			p[f->at] = f->idle;
		else if (clang_site(p, c) < 0)
			far = 1;
	}
	if (far)
		rt_warn_once(NULL, "counting sites out of reach of the hook in",
			     path, ERANGE, "they stay nops, not counted");
	if (window_close(&w) < 0 && !err)
		err = -errno;
	if (err < 0)
		rt_warn_once(NULL, "cannot idle the counting sites (mprotect) of",
			     path, -err, "they stay calls, counted into memory only");
}

/* The walk of the modules loaded at start. */
struct rewrite {
	int first;               /* the next callback is the executable's */
};

/*
 * What `vigil attach` reads and writes to switch counting on and off live
 * (ondemand_ctl.h; docs/ondemand.md, "Switched on live"): in a section of
 * its own, which the outside finds from the executable's section headers.
 * lists[] holds every object's site list: first those of the modules
 * loaded at start (n_start of them, made idle before main, never
 * unloaded, so no later object can have its list at one of their
 * addresses), then each plugin's, once per address.
 */
__attribute__((section(VGL_OD_SECTION), used, aligned(64)))
struct vgl_od_ctl vgl_od_ctl = {
	.magic = VGL_OD_MAGIC,
	.size = sizeof(struct vgl_od_ctl),
	.fd = -1,
};
static unsigned n_start;

/* Adds a site list to the table (once per address); how many lists were
 * there before, or -1 when it is there already. */
static int RT list_add(const uint64_t *start, const uint64_t *stop)
{
	unsigned i, n = __atomic_load_n(&vgl_od_ctl.nlists, __ATOMIC_RELAXED);

	for (i = 0; i < n; i++)
		if (vgl_od_ctl.lists[i][0] == (uintptr_t)start)
			return -1;
	if (n >= VGL_OD_LISTS)
		return (int)n;
	vgl_od_ctl.lists[n][0] = (uintptr_t)start;
	vgl_od_ctl.lists[n][1] = (uintptr_t)stop;
	/* The list before its count, and both before `want` is read (the
	 * outside writes `want`, then reads the lists: a plugin that saw
	 * counting on is in the lists it switches off). */
	__atomic_store_n(&vgl_od_ctl.nlists, n + 1, __ATOMIC_SEQ_CST);
	return (int)n;
}

/* Whether counting was asked for from outside (the live switch). */
int RT ondemand_wanted(void)
{
	return vgl_od_ctl.idle &&
	       __atomic_load_n(&vgl_od_ctl.want, __ATOMIC_SEQ_CST) == 1;
}

/* The memfd the runtime counts into since the switch, for the outside to
 * take (pidfd_getfd); -1: none, or forgotten (a fork child's). */
void RT ondemand_took_fd(int fd, uint64_t dev, uint64_t ino)
{
	vgl_od_ctl.dev = dev;
	vgl_od_ctl.ino = ino;
	__atomic_store_n(&vgl_od_ctl.fd, fd, __ATOMIC_RELEASE);
}

void RT ondemand_forked(void)
{
	struct stat st;
	int fd = vgl_od_ctl.fd;

	__atomic_store_n(&vgl_od_ctl.want, 0, __ATOMIC_SEQ_CST);
	/* The parent's descriptor, unless the program has closed it and
	 * reused its number. */
	if (fd >= 0 && fstat(fd, &st) == 0 &&
	    (uint64_t)st.st_dev == vgl_od_ctl.dev &&
	    (uint64_t)st.st_ino == vgl_od_ctl.ino)
		close(fd);
	ondemand_took_fd(-1, 0, 0);
}

/* A dl_iterate_phdr callback: each module's sites from its file's
 * section headers. */
static int RT idle_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct rewrite *rw = arg;
	const char *path = info->dlpi_name;
	const uint64_t *sites;
	uint64_t addr[2], bytes[2];
	int exe = rw->first, k;

	(void)size;
	if (rw->first) {
		rw->first = 0;
		path = vgl_rt.exe;
	}
	if (!path || !*path || !find_sites(path, addr, bytes))
		return 0;
	/* GCC's lists only while idle (counting, they stay the calls
	 * GCC made); Clang's in the executable always, its libraries' in
	 * their constructors (their slots are known there). */
	for (k = 0; k < 2; k++) {
		struct clang_sites c = {
			(uintptr_t)__wrap___fentry__, 0, !idle
		};

		if (!bytes[k] || bytes[k] % 8 || (k == 0 && !idle) ||
		    (k == 1 && !exe) ||
		    !segment_of(info, info->dlpi_addr + addr[k], bytes[k], 0))
			continue;
		sites = (const uint64_t *)(info->dlpi_addr + addr[k]);
		if (idle && list_add(sites, sites + bytes[k] / 8) >= 0)
			n_start = vgl_od_ctl.nlists;
		rewrite_sites(info, path, sites, bytes[k] / 8, k ? &c : NULL);
	}
	return 0;
}

/* The module whose sites vgl_ondemand_module was given. */
struct given {
	const uint64_t *start, *stop;
	int first;
	const struct clang_sites *c;     /* Clang's list, or NULL */
};

static int RT idle_given(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct given *g = arg;
	const char *path = g->first ? vgl_rt.exe : info->dlpi_name;
	size_t bytes = (const char *)g->stop - (const char *)g->start;

	(void)size;
	g->first = 0;
	if (!segment_of(info, (uintptr_t)g->start, bytes, 0))
		return 0;
	rewrite_sites(info, path && *path ? path : "?", g->start, bytes / 8,
		   g->c);
	return 1;
}

/*
 * Called by the constructor of vigil-mcount-rw.o (vigil-mcount-rw.c.in),
 * the first one of every ondemand object, with that
 * object's __mcount_loc: a plugin dlopened by an idle program has its
 * sites made idle before any other of its constructors runs and before
 * dlopen returns, so before the program can have any of its addresses.
 * Objects loaded at start were made idle before main already: their
 * sites are nops, and this is one pass over their list.  Exported, for
 * the objects' constructors to find; a program built otherwise has none,
 * and its plugins' constructors find NULL.
 */
__attribute__((visibility("default"))) void RT
vgl_ondemand_module(const uint64_t *start, const uint64_t *stop)
{
	struct given g = { start, stop, 1, NULL };
	int saved = errno;
	unsigned i;

	for (i = 0; i < n_start; i++)
		if (vgl_od_ctl.lists[i][0] == (uintptr_t)start)
			return;
	if (start && stop > start && ondemand_idle()) {
		list_add(start, stop);
		/* Counting switched on live: the plugin's calls stay calls. */
		if (!ondemand_wanted()) {
			module_find_exe();
			dl_iterate_phdr(idle_given, &g);
		}
	}
	errno = saved;
}

/*
 * The same for an object built with Clang (vigil-ondemand.pc's
 * clang_cflags: -fpatchable-function-entry=6), called by its
 * vigil-mcount-rw.o with its __patchable_function_entries and its own
 * slot, which gets __fentry__: each nop becomes `call *slot(%rip)`, or its
 * idle twin in an idle process not switched on.  The executable's own
 * were done before main (as calls of the hook itself).
 */
__attribute__((visibility("default"))) void RT
vgl_ondemand_clang(const uint64_t *start, const uint64_t *stop, void **slot)
{
	struct clang_sites c = { (uintptr_t)slot, 1, 0 };
	struct given g = { start, stop, 1, &c };
	int saved = errno;
	unsigned i;

	for (i = 0; i < n_start; i++)
		if (vgl_od_ctl.lists[i][0] == (uintptr_t)start)
			return;
	if (!start || stop <= start || !slot)
		return;
	*slot = (void *)__fentry__;
	c.on = !ondemand_idle() || ondemand_wanted();
	if (ondemand_idle())
		list_add(start, stop);
	module_find_exe();
	dl_iterate_phdr(idle_given, &g);
	errno = saved;
}

/*
 * Before main (the executable's .preinit_array, with the process's
 * environment: libc's environ is not set yet in a dynamic program).
 */
static void RT ondemand_start(int argc, char **argv, char **envp)
{
	struct rewrite rw = { 1 };
	int saved = errno;

	(void)argc;
	(void)argv;
	if (idle < 0)
		idle = idle_from(envp);
	vgl_od_ctl.idle = idle;
	module_find_exe();
	dl_iterate_phdr(idle_module, &rw);
	errno = saved;
}

/* What vigil-ondemand.specs names (-u) to pull this file in. */
__attribute__((section(".preinit_array"), used))
void (*const vgl_ondemand_start)(int, char **, char **) = ondemand_start;

#endif
