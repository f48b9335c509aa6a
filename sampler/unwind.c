/*
 * unwind.c - see unwind.h.
 *
 * elfutils' libdwfl does the unwinding, as in perf's util/unwind-libdw.c:
 * the process's modules are reported once from /proc/PID/maps (again
 * after a dlopen or an exec), and one thread state is attached whose
 * callbacks answer from the sample being unwound - its registers, and its
 * copy of the stack for memory.  libdwfl keeps each module's ELF and CFI
 * (.eh_frame with its binary-search header, or .debug_frame) between
 * samples, so a frame costs one table lookup and one CFA program.
 *
 * Unlike perf, nothing is read outside the copied stack: a rule that
 * needs other memory ends the chain there (truncated), and a frame is
 * kept only when its address lies in an executable mapping of the
 * target, so a chain that wanders into data ends instead of reporting
 * bytes of the heap as functions (25% to 65% of vigil's frames on Debian
 * binaries before, measured for the issue).
 */
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "maps.h"
#include "unwind.h"

/* After new code was mapped (unwind_stale), the maps are read again
 * before the next sample is unwound, but at most this often: a program
 * that dlopens in a loop made every wake-up read them (vigil's CPU at
 * 999 Hz: 0.64 s in 5 s, against 0.20 s before the re-reads). */
#define STALE_NS 50000000ull
#define RELOAD_NS 100000000ull   /* at most one re-read of the maps per */

struct xmap {
	uint64_t lo, hi;
};

struct unwinder {
	pid_t pid;
	int dwarf;               /* 0: the executable mappings only */
	Dwfl *dwfl;
	int attached;
	struct xmap *x;          /* executable mappings, sorted */
	size_t nx, capx;
	uint64_t loaded_ns;      /* 0: read at the next sample */
	int stale;               /* new code mapped since (unwind_stale) */
	int hold;                /* samples of a replaced image: no re-read */
	/* The sample being unwound. */
	const uint64_t *regs;    /* DWARF order, UNWIND_NREGS */
	uint64_t sp;
	const unsigned char *stack;
	size_t stack_len;
	uint64_t *ips;
	uint32_t n, max;
	int truncated;
};

/* Separate debug files are not looked for: .eh_frame is in the binary,
 * and a network look-up (debuginfod) has no place in a sampler. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			Dwarf_Addr base, const char *file_name,
			const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	(void)mod; (void)userdata; (void)modname; (void)base;
	(void)file_name; (void)debuglink_file; (void)debuglink_crc;
	*debuginfo_file_name = NULL;
	return -1;
}

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = no_debuginfo,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl; (void)arg; (void)thread_argp;
	return 0;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl; (void)tid;
	*thread_argp = arg;
	return true;
}

/* Memory is the sample's copy of the stack, nothing else. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			void *arg)
{
	struct unwinder *u = arg;

	(void)dwfl;
	if (addr < u->sp || addr - u->sp > u->stack_len ||
	    u->stack_len - (addr - u->sp) < sizeof(*result))
		return false;
	memcpy(result, u->stack + (addr - u->sp), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Word r[UNWIND_NREGS];
	unsigned i;

	for (i = 0; i < UNWIND_NREGS; i++)
		r[i] = u->regs[i];
	dwfl_thread_state_register_pc(thread, r[UNWIND_REG_IP]);
	return dwfl_thread_state_registers(thread, 0, UNWIND_NREGS, r);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int cmp_xmap(const void *a, const void *b)
{
	const struct xmap *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Reads the executable mappings of the process (lib/maps.c, the one
 * reader of /proc/PID/maps); -1, with the ones read before kept, when
 * they cannot be read: the process is gone. */
static int read_xmaps(struct unwinder *u)
{
	struct vgl_maps maps;
	struct vgl_map m;
	struct xmap *x = NULL;
	size_t nx = 0, capx = 0;

	if (vgl_maps_open(&maps, u->pid))
		return -1;
	while (vgl_maps_next(&maps, &m)) {
		if (m.perms[2] != 'x')
			continue;
		if (nx == capx) {
			size_t cap = capx ? capx * 2 : 64;
			struct xmap *p = realloc(x, cap * sizeof(*p));

			if (!p)
				break;
			x = p;
			capx = cap;
		}
		x[nx++] = (struct xmap){ m.lo, m.hi };
	}
	vgl_maps_close(&maps);
	/* An exited process reads as no mappings at all. */
	if (!nx) {
		free(x);
		return -1;
	}
	qsort(x, nx, sizeof(*x), cmp_xmap);
	free(u->x);
	u->x = x;
	u->nx = nx;
	u->capx = capx;
	return 0;
}

static int in_xmap(const struct unwinder *u, uint64_t addr)
{
	size_t lo = 0, hi = u->nx;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < u->x[mid].lo)
			hi = mid;
		else if (addr >= u->x[mid].hi)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

/*
 * (Re)reads the process's modules and executable mappings.  Samples are
 * often unwound after the process has ended (a short one ends before the
 * first interval): then nothing can be read, and what was read before
 * stands, not an empty map that would make every sample unwind to
 * nothing (Debian's python3 kept 0 to 35 of 38 samples).
 */
static void load(struct unwinder *u)
{
	Dwfl *d;

	u->loaded_ns = vgl_clock_ns(CLOCK_MONOTONIC);
	u->stale = 0;
	if (read_xmaps(u) < 0 || !u->dwarf)
		return;
	d = dwfl_begin(&proc_callbacks);
	if (!d)
		return;
	dwfl_report_begin(d);
	if (dwfl_linux_proc_report(d, u->pid) ||
	    dwfl_report_end(d, NULL, NULL) ||
	    !dwfl_attach_state(d, NULL, u->pid, &thread_callbacks, u)) {
		dwfl_end(d);
		return;
	}
	if (u->dwfl)
		dwfl_end(u->dwfl);
	u->dwfl = d;
	u->attached = 1;
}

int unwind_open(struct unwinder **out, pid_t pid, int dwarf)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	u->pid = pid;
	u->dwarf = dwarf;
	*out = u;
	return 0;
}

void unwind_ready(struct unwinder *u)
{
	if (u && !u->loaded_ns && !u->hold)
		load(u);
}

void unwind_forget(struct unwinder *u)
{
	if (u)
		u->loaded_ns = 0;
}

void unwind_stale(struct unwinder *u)
{
	if (u)
		u->stale = 1;
}

/* Whether the maps are to be read before a sample is unwound: never
 * read, or new code mapped since and the last read long enough ago. */
static int due(const struct unwinder *u)
{
	if (u->hold)
		return 0;
	return !u->loaded_ns ||
	       (u->stale &&
		vgl_clock_ns(CLOCK_MONOTONIC) - u->loaded_ns > STALE_NS);
}

void unwind_hold(struct unwinder *u, int hold)
{
	if (u)
		u->hold = hold;
}

static int frame_cb(Dwfl_Frame *frame, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(frame, &pc, &activation)) {
		u->truncated = 1;
		return DWARF_CB_ABORT;
	}
	/* A return address is looked up inside its call instruction. */
	if (!in_xmap(u, activation || !pc ? pc : pc - 1)) {
		u->truncated = 1;
		return DWARF_CB_ABORT;
	}
	if (u->n == u->max) {
		u->truncated = 1;
		return DWARF_CB_ABORT;
	}
	u->ips[u->n++] = pc;
	return DWARF_CB_OK;
}

uint32_t unwind_sample(struct unwinder *u, pid_t tid, const uint64_t *regs,
		       const unsigned char *stack, size_t stack_len,
		       uint64_t *ips, uint32_t max, int *truncated)
{
	uint64_t ip = regs[UNWIND_REG_IP], t;
	int ret;

	if (due(u))
		load(u);
	if (!in_xmap(u, ip) && !u->hold &&
	    (t = vgl_clock_ns(CLOCK_MONOTONIC)) - u->loaded_ns > RELOAD_NS)
		load(u);    /* a mapping new since we read them: dlopen */
	*truncated = 1;
	if (!in_xmap(u, ip) || !max)
		return 0;
	if (!u->attached) {
		/* No modules to unwind with: the place alone. */
		ips[0] = ip;
		return 1;
	}
	u->regs = regs;
	u->sp = regs[UNWIND_REG_SP];
	u->stack = stack;
	u->stack_len = stack_len;
	u->ips = ips;
	u->n = 0;
	u->max = max;
	u->truncated = 0;
	ret = dwfl_getthread_frames(u->dwfl, tid, frame_cb, u);
	/* 0: the outermost frame said so (its return address undefined,
	 * as _start's and clone's CFI say); -1: no rule for the next frame,
	 * or the rule needed memory outside the copied stack. */
	*truncated = u->truncated || ret != 0;
	return u->n;
}

uint32_t unwind_check(struct unwinder *u, const uint64_t *ips, uint32_t n,
		      int *truncated)
{
	uint32_t i;

	if (due(u) ||
	    (!u->hold && n && !in_xmap(u, ips[0]) &&
	     vgl_clock_ns(CLOCK_MONOTONIC) - u->loaded_ns > RELOAD_NS))
		load(u);
	for (i = 0; i < n; i++)
		if (!in_xmap(u, i && ips[i] ? ips[i] - 1 : ips[i]))
			break;
	*truncated = i < n;
	return i;
}

void unwind_close(struct unwinder *u)
{
	if (!u)
		return;
	if (u->dwfl)
		dwfl_end(u->dwfl);
	free(u->x);
	free(u);
}
