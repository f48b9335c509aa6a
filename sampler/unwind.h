/*
 * unwind.h - user-space call chains of a live process's stack samples,
 * unwound from its binaries' own unwind tables (.eh_frame, .debug_frame)
 * with the registers and the copy of the stack each sample carries
 * (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER).  Works on binaries
 * built without frame pointers, which is how distributions build them.
 * x86-64 only (the register numbering below).
 */
#ifndef VIGIL_SAMPLER_UNWIND_H
#define VIGIL_SAMPLER_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Registers in DWARF numbering for x86-64: rax rdx rcx rbx rsi rdi rbp
 * rsp r8..r15, then the return address column, which holds the ip. */
#define UNWIND_NREGS 17
#define UNWIND_REG_SP 7
#define UNWIND_REG_IP 16

struct unwinder;

struct proc_image;

/* Prepares to unwind the samples of img's process, against its views
 * (image.h, which says when they are read again);
 * dwarf 0: only to check chains walked otherwise (unwind_check).
 * Returns 0 or -ENOMEM. */
int unwind_open(struct unwinder **out, struct proc_image *img, int dwarf);

/*
 * Unwinds one sample of thread tid: regs (UNWIND_NREGS, DWARF order),
 * and stack_len bytes copied from the stack pointer up.  Fills ips[0] with
 * the ip, then the return addresses, at most max, each in an executable
 * mapping of the process.  Returns how many; *truncated is 0 when the
 * chain reached its outermost frame, 1 when it stopped short (no rule,
 * the stack copy ended, an address outside executable code, max).
 */
uint32_t unwind_sample(struct unwinder *u, pid_t tid, const uint64_t *regs,
		       const unsigned char *stack, size_t stack_len,
		       uint64_t *ips, uint32_t max, int *truncated);

/* The length of the prefix of ips[0..n) (a frame-pointer chain) whose
 * addresses are all in executable mappings; *truncated 1 when that is
 * shorter than n: the walk left the code (a frame pointer that was none). */
uint32_t unwind_check(struct unwinder *u, const uint64_t *ips, uint32_t n,
		      int *truncated);

void unwind_close(struct unwinder *u);

#endif
