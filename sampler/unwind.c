/*
 * unwind.c - see unwind.h.
 *
 * elfutils' libdwfl does the unwinding, as in perf's util/unwind-libdw.c:
 * the process's modules are reported once from its image (image.h; again
 * when the image is read anew, after a dlopen or an exec), and one thread
 * state is attached whose
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

#include <stdio.h>

#include "image.h"
#include "symbolizer.h"
#include "unwind.h"

struct unwinder {
	struct proc_image *img;
	int dwarf;               /* 0: the executable mappings only */
	Dwfl *dwfl;
	uint64_t dwfl_seq;       /* the view it reports; 0: none */
	/* The sample being unwound, and the view it is unwound against. */
	const struct image_view *v;
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

/* The view's executable mappings, with the same one when the image
 * cannot be read now: samples are often unwound after the process has
 * ended (a short one ends before the first interval), and an empty map
 * would make every sample unwind to nothing (Debian's python3 kept 0 to
 * 35 of 38 samples). */
static int in_x(const struct unwinder *u, uint64_t addr)
{
	return u->v && image_view_in_x(u->v, addr);
}

/*
 * The modules of the view, reported to libdwfl from its text (no second
 * read of the maps), when the view is not the one reported already.  The
 * vDSO is reported by hand under the name libdwfl's own report gives it,
 * "[vdso: PID]", by which its ELF is read from the process's memory.
 * When that fails, the modules reported before stand.
 */
static void report(struct unwinder *u)
{
	const struct image_view *v = u->v;
	char name[40];
	FILE *f;
	Dwfl *d;
	size_t i;
	int bad;

	if (!u->dwarf || !v || v->seq == u->dwfl_seq)
		return;
	u->dwfl_seq = v->seq;
	d = dwfl_begin(&proc_callbacks);
	if (!d)
		return;
	f = fmemopen(v->text, v->len ? v->len : 1, "r");
	dwfl_report_begin(d);
	bad = !f || dwfl_linux_proc_maps_report(d, f);
	if (f)
		fclose(f);
	snprintf(name, sizeof(name), "[vdso: %d]", (int)proc_image_pid(u->img));
	for (i = 0; !bad && i < v->nmaps; i++)
		if (v->maps[i].mod >= 0 &&
		    !strcmp(v->mods[v->maps[i].mod].path, VGL_VDSO_PATH) &&
		    v->maps[i].perms[2] == 'x') {
			if (!dwfl_report_module(d, name, v->maps[i].lo,
						v->maps[i].hi))
				bad = 1;
			break;
		}
	if (bad || dwfl_report_end(d, NULL, NULL) ||
	    !dwfl_attach_state(d, NULL, proc_image_pid(u->img),
			       &thread_callbacks, u)) {
		dwfl_end(d);
		return;
	}
	if (u->dwfl)
		dwfl_end(u->dwfl);
	u->dwfl = d;
}

/* The view to unwind against (see in_x). */
static void view_for(struct unwinder *u, uint64_t addr)
{
	const struct image_view *v = proc_image_at(u->img, addr);

	u->v = v ? v : proc_image_old(u->img);
	report(u);
}

int unwind_open(struct unwinder **out, struct proc_image *img, int dwarf)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	u->img = img;
	u->dwarf = dwarf;
	*out = u;
	return 0;
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
	if (!in_x(u, activation || !pc ? pc : pc - 1)) {
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
	uint64_t ip = regs[UNWIND_REG_IP];
	int ret;

	view_for(u, ip);
	*truncated = 1;
	if (!in_x(u, ip) || !max)
		return 0;
	if (!u->dwfl) {
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

	view_for(u, n ? ips[0] : 0);
	for (i = 0; i < n; i++)
		if (!in_x(u, i && ips[i] ? ips[i] - 1 : ips[i]))
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
	free(u);
}
