/*
 * callsite.c - see callsite.h.
 *
 * A return address says where the call ended, not where it began, and x86
 * instructions have no fixed length.  Looking back from the return address
 * is ambiguous: `call *0x8(%r13)` is 41 ff 55 08, and its last three bytes
 * are `call *0x8(%rbp)`, a call that also ends there.  So the function
 * that holds the return address is decoded from its first byte, which
 * gives the real instruction boundaries (GCC and Clang put no data in
 * .text), and the instruction that ends at the return address is the
 * call.  The boundaries of the last function decoded are kept: the model
 * looks sites up in address order, so one function's sites come together.
 * Without a symbol, or when the decoding does not land on the return
 * address, we fall back to looking back: one instruction at each distance
 * a call can have (5 bytes first, then 2 to 7), the first that is a call
 * ending there.
 *
 * capstone is loaded with dlopen when the first call is decoded, not
 * linked: its 80,000 relocations were two thirds of the start-up of
 * every vigil command (`vigil --help` 22 ms of CPU, 533 page faults),
 * and only reports of enter/exit profiles and BOLT's .fdata decode.
 */
#include <capstone/capstone.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "callsite.h"
#include "message.h"

#define STR_(x) #x
#define STR(x) STR_(x)
/* The library of the capstone whose header we were built with. */
#define CAPSTONE_SONAME "libcapstone.so." STR(CS_API_MAJOR)

/* capstone's functions, from the library once loaded. */
static struct {
	int ok;
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_err (*option)(csh, cs_opt_type, size_t);
	cs_insn *(*malloc)(csh);
	void (*free)(cs_insn *, size_t);
	cs_err (*close)(csh *);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *,
			    cs_insn *);
	cs_err (*regs_access)(csh, const cs_insn *, cs_regs, uint8_t *,
			      cs_regs, uint8_t *);
} cs_lib;

static void dlopen_capstone(void)
{
	void *h = dlopen(CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		vgl_warning("%s; call instructions are not decoded", dlerror());
		return;
	}
	*(void **)&cs_lib.open = dlsym(h, "cs_open");
	*(void **)&cs_lib.option = dlsym(h, "cs_option");
	*(void **)&cs_lib.malloc = dlsym(h, "cs_malloc");
	*(void **)&cs_lib.free = dlsym(h, "cs_free");
	*(void **)&cs_lib.close = dlsym(h, "cs_close");
	*(void **)&cs_lib.disasm_iter = dlsym(h, "cs_disasm_iter");
	/* Only for vgl_code_keeps_scratch: may be missing. */
	*(void **)&cs_lib.regs_access = dlsym(h, "cs_regs_access");
	cs_lib.ok = cs_lib.open && cs_lib.option && cs_lib.malloc &&
		    cs_lib.free && cs_lib.close && cs_lib.disasm_iter;
	if (!cs_lib.ok)
		vgl_warning("%s lacks a function vigil calls; call instructions are not decoded",
			    CAPSTONE_SONAME);
}

/* Loads capstone once per process, whichever thread asks first; 1 when
 * its functions are there.  A process keeps it loaded. */
static int load_capstone(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, dlopen_capstone);
	return cs_lib.ok;
}

const char *vgl_callsite_decoder(void)
{
	return CAPSTONE_SONAME;
}

struct vgl_callsite {
	struct vgl_symbolizer *sym;
	csh handle;
	cs_insn *insn;
	int tried, open;        /* opening the decoder was tried; it is open */
	int err;                /* else why not: -ENOTSUP, -ENOMEM */
	/* The last function decoded: where its instructions start. */
	size_t fn_mod;
	uint64_t fn_start, fn_end;
	uint64_t *starts;
	size_t nstarts, cap;
	int have_fn;
};

int vgl_callsite_new(struct vgl_callsite **out, struct vgl_symbolizer *sym)
{
	struct vgl_callsite *cs = calloc(1, sizeof(*cs));

	*out = cs;
	if (!cs)
		return -ENOMEM;
	cs->sym = sym;
	return 0;
}

/* Opens the decoder on first use: 0, -ELIBACC without capstone (or
 * with one that cannot decode x86-64), or -ENOMEM. */
static int cs_ready(struct vgl_callsite *cs)
{
	if (cs->tried)
		return cs->err;
	cs->tried = 1;
	cs->err = -ELIBACC;
	if (!load_capstone() ||
	    cs_lib.open(CS_ARCH_X86, CS_MODE_64, &cs->handle) != CS_ERR_OK)
		return cs->err;
	cs_lib.option(cs->handle, CS_OPT_DETAIL, CS_OPT_ON);
	cs->insn = cs_lib.malloc(cs->handle);
	if (!cs->insn) {
		cs_lib.close(&cs->handle);
		return cs->err = -ENOMEM;
	}
	cs->open = 1;
	return cs->err = 0;
}

void vgl_callsite_free(struct vgl_callsite *cs)
{
	if (!cs)
		return;
	free(cs->starts);
	if (cs->open) {
		cs_lib.free(cs->insn, 1);
		cs_lib.close(&cs->handle);
	}
	free(cs);
}

/* Fills *out from the call decoded in cs->insn, ending at elf_ret. */
static void fill(struct vgl_callsite *cs, uint64_t elf_ret,
		 struct vgl_call_insn *out)
{
	cs_x86 *x = &cs->insn->detail->x86;

	out->addr = elf_ret - cs->insn->size;
	out->size = cs->insn->size;
	out->direct = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;
	out->target = out->direct ? (uint64_t)x->operands[0].imm : 0;
}

/*
 * Decodes function [start, end) of mod from its first byte and keeps where
 * each instruction starts.  Returns 0, or -ENOENT when its code cannot be
 * read or decoded (then nothing is kept).
 */
static int decode_function(struct vgl_callsite *cs, size_t mod,
			   uint64_t start, uint64_t end)
{
	const uint8_t *code;
	size_t size = end - start;
	uint64_t at = start;

	cs->have_fn = 0;
	cs->nstarts = 0;
	if (end <= start || end - start > (64u << 20) ||
	    vgl_symbolizer_code(cs->sym, mod, start, size, &code) < 0)
		return -ENOENT;
	while (size) {
		uint64_t here = at;

		if (cs->nstarts == cs->cap) {
			size_t cap = cs->cap ? 2 * cs->cap : 1024;
			uint64_t *n = realloc(cs->starts, cap * sizeof(*n));

			if (!n)
				return -ENOENT;
			cs->starts = n;
			cs->cap = cap;
		}
		if (!cs_lib.disasm_iter(cs->handle, &code, &size, &at, cs->insn))
			return -ENOENT;   /* not code: padding, data */
		cs->starts[cs->nstarts++] = here;
	}
	cs->fn_mod = mod;
	cs->fn_start = start;
	cs->fn_end = end;
	cs->have_fn = 1;
	return 0;
}

/* The call that ends at elf_ret, by the function's own decoding: 0, or
 * -ENOENT when that cannot tell (no symbol, no clean decoding). */
static int find_forward(struct vgl_callsite *cs, size_t mod, uint64_t ret,
			uint64_t elf_ret, struct vgl_call_insn *out)
{
	struct vgl_func_sym *f = vgl_symbolizer_func(cs->sym, mod, ret - 1);
	size_t lo = 0, hi;
	const uint8_t *code;
	uint64_t at;
	size_t size;

	if (!f || !f->size || elf_ret <= f->start ||
	    elf_ret > f->start + f->size)
		return -ENOENT;
	if (!cs->have_fn || cs->fn_mod != mod || cs->fn_start != f->start ||
	    cs->fn_end != f->start + f->size)
		if (decode_function(cs, mod, f->start, f->start + f->size) < 0)
			return -ENOENT;
	/* The instruction that starts last before elf_ret must end there. */
	hi = cs->nstarts;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cs->starts[mid] < elf_ret)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || (lo < cs->nstarts && cs->starts[lo] != elf_ret &&
		    elf_ret != cs->fn_end))
		return -ENOENT;   /* elf_ret is inside an instruction */
	at = cs->starts[lo - 1];
	size = elf_ret - at;
	if (vgl_symbolizer_code(cs->sym, mod, at, size, &code) < 0 ||
	    !cs_lib.disasm_iter(cs->handle, &code, &size, &at, cs->insn) ||
	    cs->insn->id != X86_INS_CALL || at != elf_ret)
		return -ENOENT;
	fill(cs, elf_ret, out);
	return 0;
}

int vgl_callsite_find(struct vgl_callsite *cs, size_t mod, uint64_t ret,
		      struct vgl_call_insn *out)
{
	static const unsigned lengths[] = { 5, 2, 3, 6, 7, 4 };
	uint64_t elf_ret = ret - vgl_symbolizer_module_bias(cs->sym, mod);
	size_t i;

	int err;

	if (vgl_symbolizer_machine(cs->sym, mod) != EM_X86_64)
		return -ENOTSUP;
	if ((err = cs_ready(cs)))
		return err;
	if (!find_forward(cs, mod, ret, elf_ret, out))
		return 0;
	for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
		unsigned k = lengths[i];
		const uint8_t *code;
		size_t size = k;
		uint64_t at = elf_ret - k;

		if (elf_ret < k ||
		    vgl_symbolizer_code(cs->sym, mod, at, k, &code) < 0)
			continue;
		if (!cs_lib.disasm_iter(cs->handle, &code, &size, &at, cs->insn) ||
		    cs->insn->size != k || cs->insn->id != X86_INS_CALL)
			continue;
		fill(cs, elf_ret, out);
		return 0;
	}
	return -ENOENT;
}

/* r10 or r11, at any width. */
static int scratch_reg(uint16_t r)
{
	switch (r) {
	case X86_REG_R10: case X86_REG_R10D: case X86_REG_R10W:
	case X86_REG_R10B:
		return 10;
	case X86_REG_R11: case X86_REG_R11D: case X86_REG_R11W:
	case X86_REG_R11B:
		return 11;
	default:
		return 0;
	}
}

/* Jumps, calls and returns end the straight-line code looked at. */
static int ends_straight_line(const cs_insn *in)
{
	uint8_t i;

	for (i = 0; i < in->detail->groups_count; i++)
		switch (in->detail->groups[i]) {
		case CS_GRP_JUMP: case CS_GRP_CALL: case CS_GRP_RET:
		case CS_GRP_IRET: case CS_GRP_INT:
			return 1;
		}
	return 0;
}

int vgl_code_keeps_scratch(const uint8_t *code, size_t size, uint64_t addr,
			   int (*is_target)(void *arg, uint64_t to), void *arg,
			   struct vgl_scratch_use *use)
{
	csh h;
	cs_insn *in;
	int found = 0, pending = 0, written[12] = { 0 }, set[12] = { 0 },
	    kept[12] = { 0 };
	uint64_t call_addr = 0, call_to = 0;

	if (!load_capstone() || !cs_lib.regs_access)
		return -ELIBACC;
	if (cs_lib.open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return -ELIBACC;
	cs_lib.option(h, CS_OPT_DETAIL, CS_OPT_ON);
	in = cs_lib.malloc(h);
	if (!in) {
		cs_lib.close(&h);
		return -ENOMEM;
	}
	/*
	 * A value kept across the call is one set in the straight line
	 * before it (set: since the last jump, return, or call of a function
	 * that may change r10/r11) and read after it before any write.  A
	 * read alone is no proof: the code after a call of a function that
	 * never returns (Lua's luaX_syntaxerror) is another block, reached
	 * by a jump, whose r10 came from elsewhere; Lua's own entry build
	 * was called bad for it.
	 */
	while (!found && size) {
		uint64_t at = addr;
		cs_regs rd, wr;
		uint8_t nrd = 0, nwr = 0, i;
		cs_x86 *x;

		if (!cs_lib.disasm_iter(h, &code, &size, &addr, in))
			break;   /* not code: padding, data */
		x = &in->detail->x86;
		if (cs_lib.regs_access(h, in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
			nrd = nwr = 0;
		for (i = 0; pending && i < nrd && !found; i++) {
			int r = scratch_reg(rd[i]);

			if (r && kept[r] && !written[r]) {
				found = 1;
				use->call = call_addr;
				use->target = call_to;
				use->reg = r;
				use->read = at;
			}
		}
		for (i = 0; i < nwr; i++) {
			written[scratch_reg(wr[i])] = 1;
			set[scratch_reg(wr[i])] = 1;
		}
		if (in->id == X86_INS_CALL && x->op_count == 1 &&
		    x->operands[0].type == X86_OP_IMM &&
		    is_target(arg, (uint64_t)x->operands[0].imm)) {
			pending = 1;
			call_addr = at;
			call_to = (uint64_t)x->operands[0].imm;
			kept[10] = set[10];
			kept[11] = set[11];
			written[10] = written[11] = 0;
		} else if (ends_straight_line(in)) {
			pending = 0;
			memset(set, 0, sizeof(set));
		}
	}
	cs_lib.free(in, 1);
	cs_lib.close(&h);
	return found;
}
