/*
 * callsite.h - call-site analysis: the call instruction that precedes a
 * return address, decoded with a disassembler (capstone), not guessed from
 * instruction lengths, and that call's target when it is direct.
 *
 * The profile model uses it to tell a real call edge from an inlined one:
 * GCC's and Clang's -finstrument-functions also instrument the inlined
 * copies of a function, whose hook reports the host's caller and call site.
 * When the direct target of the call at the site is not the edge's callee,
 * the callee ran inlined in that target.
 *
 * x86-64 only for now: on other machines every lookup says -ENOTSUP.
 */
#ifndef VGL_CALLSITE_H
#define VGL_CALLSITE_H

#include <stddef.h>
#include <stdint.h>

#include "symbolizer.h"

struct vgl_call_insn {
	uint64_t addr;          /* ELF address of the call instruction */
	uint32_t size;          /* its length in bytes */
	int direct;             /* 1 when the target is in the instruction */
	uint64_t target;        /* the target's ELF address, when direct */
};

struct vgl_callsite;

/* Prepares a decoder over the modules of sym (which must outlive it).
 * Returns 0 or -ENOMEM. */
int vgl_callsite_new(struct vgl_callsite **out, struct vgl_symbolizer *sym);
void vgl_callsite_free(struct vgl_callsite *cs);

/*
 * Finds the call instruction of module mod that ends at the runtime return
 * address ret.  Returns 0 and fills *out; -ENOENT when no call instruction
 * ends there (or the module's code cannot be read); -ENOTSUP on a machine
 * the decoder does not know; -ELIBACC when the decoder (capstone, loaded
 * on first use) cannot be loaded, after one warning; -ENOMEM.
 */
int vgl_callsite_find(struct vgl_callsite *cs, size_t mod, uint64_t ret,
		      struct vgl_call_insn *out);

/* A caller that keeps a value in r10 or r11 across a call. */
struct vgl_scratch_use {
	uint64_t call;          /* the call instruction's address */
	uint64_t target;        /* its direct target */
	int reg;                /* 10 or 11 */
	uint64_t read;          /* the instruction that reads it after */
};

/*
 * Whether the code of one function, [addr, addr + size) at ELF address
 * addr, has a direct call to a target that is_target(arg, target)
 * accepts, followed, in the straight-line code up to the next jump, call
 * or return, by a read of r10 or r11 (any width) before a write: the
 * caller keeps a value there across the call, which only a callee that
 * keeps every register allows (no_caller_saved_registers), and which
 * __fentry__ changes (`vigil check`).  Returns 1 and fills *use, 0, or
 * -ELIBACC when capstone cannot be loaded, -ENOMEM.
 */
int vgl_code_keeps_scratch(const uint8_t *code, size_t size, uint64_t addr,
			   int (*is_target)(void *arg, uint64_t to), void *arg,
			   struct vgl_scratch_use *use);

/* The decoder's library, as loaded: "libcapstone.so.N". */
const char *vgl_callsite_decoder(void);

#endif
