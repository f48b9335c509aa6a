/*
 * callsite.c - see callsite.h.
 *
 * A return address says where the call ended, not where it began, and x86
 * instructions have no fixed length.  We decode one instruction at each
 * distance before the return address that a call can have (5 bytes for a
 * direct call first, as it is by far the most common, then the indirect
 * forms, 2 to 7 bytes) and take the first decoding that is a call ending
 * exactly at the return address.
 */
#include <capstone/capstone.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>

#include "callsite.h"

struct vgl_callsite {
	struct vgl_symbolizer *sym;
	csh handle;
	cs_insn *insn;
	int open;
};

int vgl_callsite_new(struct vgl_callsite **out, struct vgl_symbolizer *sym)
{
	struct vgl_callsite *cs = calloc(1, sizeof(*cs));

	*out = NULL;
	if (!cs)
		return -ENOMEM;
	cs->sym = sym;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs->handle) == CS_ERR_OK) {
		cs->open = 1;
		cs_option(cs->handle, CS_OPT_DETAIL, CS_OPT_ON);
		cs->insn = cs_malloc(cs->handle);
		if (!cs->insn) {
			vgl_callsite_free(cs);
			return -ENOMEM;
		}
	}
	*out = cs;
	return 0;
}

void vgl_callsite_free(struct vgl_callsite *cs)
{
	if (!cs)
		return;
	if (cs->insn)
		cs_free(cs->insn, 1);
	if (cs->open)
		cs_close(&cs->handle);
	free(cs);
}

int vgl_callsite_find(struct vgl_callsite *cs, size_t mod, uint64_t ret,
		      struct vgl_call_insn *out)
{
	static const unsigned lengths[] = { 5, 2, 3, 6, 7, 4 };
	uint64_t elf_ret = ret - vgl_symbolizer_module_bias(cs->sym, mod);
	size_t i;

	if (!cs->open || vgl_symbolizer_machine(cs->sym, mod) != EM_X86_64)
		return -ENOTSUP;
	for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
		unsigned k = lengths[i];
		const uint8_t *code;
		size_t size = k;
		uint64_t at = elf_ret - k;
		cs_x86 *x;

		if (elf_ret < k ||
		    vgl_symbolizer_code(cs->sym, mod, at, k, &code) < 0)
			continue;
		if (!cs_disasm_iter(cs->handle, &code, &size, &at, cs->insn) ||
		    cs->insn->size != k || cs->insn->id != X86_INS_CALL)
			continue;
		x = &cs->insn->detail->x86;
		out->addr = elf_ret - k;
		out->size = k;
		out->direct = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;
		out->target = out->direct ? (uint64_t)x->operands[0].imm : 0;
		return 0;
	}
	return -ENOENT;
}
